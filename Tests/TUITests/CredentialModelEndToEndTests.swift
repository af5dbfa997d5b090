import Foundation
import KeyshelfTestSupport
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
import Testing

/// Issue 13 in the real binary under tmux: http and https domains are two
/// rows, and `L` on the http one runs the login flow for http.
@Suite(.serialized) struct CredentialModelEndToEndTests {
    @Test func httpAndHttpsDomainsAreShownApartAndLoginKeepsTheScheme() throws {
        let tmux = try TmuxSession(samples: [
            ("http://git.example.com", "plain-user", .local, ""),
            ("https://git.example.com", "tls-user", .local, ""),
        ])
        try tmux.start(columns: 110, rows: 30)
        let browser = try tmux.waitFor("Accounts of http://git.example.com")
        #expect(browser.contains("2/2 domains"), "\(browser)")
        #expect(browser.contains("│ http://git.example.com"), "\(browser)")
        #expect(browser.contains("│ git.example.com "), "\(browser)")
        try tmux.send("L")
        let login = try tmux.waitFor("Login for http://git.example.com")
        #expect(login.contains("use plain-user"), "\(login)")
        // L moved to the accounts pane: back to the domains, then down to the https row.
        try tmux.send("h")
        try tmux.send("j")
        _ = try tmux.waitFor("Accounts of git.example.com")
        try tmux.send("L")
        let tls = try tmux.waitFor("Login for git.example.com")
        #expect(tls.contains("use tls-user"), "\(tls)")
        try tmux.send("q")
        _ = try tmux.waitFor("EXITED 0")
    }

    @Test func genericPasswordsAreBrowsedBesideTheDomains() throws {
        let tmux = try TmuxSession(samples: [("example.com", "alice", .shared, "")])
        let session = try VaultDirectory(url: tmux.folder.appendingPathComponent("vault")).unlock(password: Secret(utf8: "e2e-master"))
        try Keyshelf(vault: session).addGeneric(service: "api.example", account: "ci-bot", password: Secret(utf8: "tok-123"), comment: "CI token")
        session.lock()
        try tmux.start(columns: 110, rows: 30)
        let browser = try tmux.waitFor("Accounts of example.com")
        #expect(browser.contains("│ service:api.example"), "\(browser)")
        try tmux.send("j")
        // Polled until the whole frame is there (a capture may catch it half drawn).
        let service = try tmux.waitFor { $0.contains("Accounts of service:api.example") && $0.contains("CI token") }
        #expect(service.contains("ci-bot"), "\(service)")
        try tmux.send("Tab", "r")
        _ = try tmux.waitFor("tok-123")
        try tmux.send("q")
        _ = try tmux.waitFor("EXITED 0")
    }

    @Test func anOutsideChangeAppearsWithoutAKeyAndKeepsTheSelection() throws {
        let tmux = try TmuxSession(samples: [("example.com", "alice", .shared, ""), ("zeta.example", "zed", .shared, "")])
        try tmux.start(columns: 110, rows: 30)
        _ = try tmux.waitFor("Accounts of example.com")
        try tmux.send("j")
        _ = try tmux.waitFor("Accounts of zeta.example")
        // Another writer (as a CLI `add` would): a domain that sorts first.
        let session = try VaultDirectory(url: tmux.folder.appendingPathComponent("vault")).unlock(password: Secret(utf8: "e2e-master"))
        try Keyshelf(vault: session).add(server: try ServerName(parsing: "aaa.example"), account: "newcomer", password: Secret(utf8: "pw"), to: .local)
        session.lock()
        let screen = try tmux.waitFor { $0.contains("│ aaa.example") && $0.contains("3/3 domains") }
        #expect(screen.contains("Accounts of zeta.example"), "the selection stays on its domain: \(screen)")
        try tmux.send("q")
        _ = try tmux.waitFor("EXITED 0")
    }
}
