import Foundation
import KeyshelfTestSupport
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// The TUI generator in tmux honours a domain's saved passwordrules (issue 16 item 8).
@Suite(.serialized) struct PasswordRulesEndToEndTests {
    static let rule = "minlength: 32; maxlength: 32; required: digit; allowed: [XYZ]"

    /// A session whose vault has `rule` saved for example.com (so mail.example.com uses it).
    func started() throws -> TmuxSession {
        let tmux = try TmuxSession(samples: TUIEndToEndTests.samples)
        let session = try VaultDirectory(url: tmux.folder.appendingPathComponent("vault")).unlock(password: Secret(utf8: "e2e-master"))
        try Keyshelf(vault: session).setPasswordRules(Self.rule, for: ServerName(parsing: "example.com"))
        session.lock()
        try tmux.start(columns: 140, rows: 30)
        try tmux.waitFor("Domains")
        return tmux
    }

    static var ruled: Regex<Substring> { /[XYZ0-9]{32}/ }

    @Test func theGeneratorKeyUsesTheSelectedDomainsRule() throws {
        let tmux = try started()
        // Domains: bücher.example, git.example.org:8443, mail.example.com, shop.example.
        try tmux.send("j", "j")
        try tmux.waitFor("Accounts of mail.example.com")
        try tmux.send("g")
        let screen = try tmux.waitFor { $0.contains("Generated Password") && $0.firstMatch(of: Self.ruled) != nil }
        let password = String(try #require(screen.firstMatch(of: Self.ruled)).output)
        #expect(password.contains { $0.isNumber }, "required: digit")
        #expect(screen.contains("rules for example.com"), "\(screen)")
        try tmux.send("Escape")
        try tmux.waitFor { !$0.contains("Generated Password") }
        // A domain without a rule keeps xxx-xxx-xxx-xxx.
        try tmux.send("k", "g")
        let standard = try tmux.waitFor { $0.contains("Generated Password") && $0.firstMatch(of: /[a-zA-Z3-9]{3}-[a-zA-Z3-9]{3}-[a-zA-Z3-9]{3}-[a-zA-Z3-9]{3}/) != nil }
        #expect(standard.firstMatch(of: Self.ruled) == nil)
        #expect(standard.contains("xxx-xxx-xxx-xxx from three character sets"))
    }

    @Test func ctrlGInTheAddFormUsesTheTypedServersRule() throws {
        let tmux = try started()
        try tmux.send("a")
        try tmux.waitFor("Add Credential")
        // Focus starts on Account; the server field holds the selected domain (bücher.example): replace it.
        try tmux.type("zoe")
        try tmux.send("Up", "C-u")
        try tmux.type("shop.login.example.com")
        try tmux.send("C-g")
        let screen = try tmux.waitFor { $0.contains("Generated Password") && $0.firstMatch(of: Self.ruled) != nil }
        let password = String(try #require(screen.firstMatch(of: Self.ruled)).output)
        try tmux.send("Tab", "Enter")
        try tmux.waitFor { !$0.contains("Generated Password") }
        try tmux.send("C-s")
        try tmux.waitFor("Saved zoe")
        let session = try VaultDirectory(url: tmux.folder.appendingPathComponent("vault")).unlock(password: Secret(utf8: "e2e-master"))
        defer { session.lock() }
        let saved = try session.contents().shared.first { $0.account == "zoe" }
        #expect(saved?.password?.unsafeString() == password)
    }
}
