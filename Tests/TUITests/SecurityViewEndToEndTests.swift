import Foundation
import KeyshelfTestSupport
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
import Testing

/// The "Security Recommendations" view (`S`) and the `!` badge of an account
/// with an audit finding, in the real binary under tmux (docs/audit.md).
@Suite(.serialized) struct SecurityViewEndToEndTests {
    @Test func theViewListsFindingsWithReasonsAndAccountsCarryABadge() throws {
        let tmux = try TmuxSession(samples: [
            ("example.com", "weakling", .shared, ""),
            ("example.com", "strong", .shared, ""),
            ("http://plain.example", "clear", .shared, ""),
        ])
        let session = try VaultDirectory(url: tmux.folder.appendingPathComponent("vault")).unlock(password: Secret(utf8: "e2e-master"))
        try session.modify { contents in
            for i in contents.shared.indices where contents.shared[i].account != "weakling" {
                contents.shared[i].password = PasswordGenerator.generate()
            }
        }
        session.lock()
        try tmux.start(columns: 110, rows: 30)
        let browser = try tmux.waitFor("Accounts of example.com")
        #expect(browser.contains("!weakling"), "\(browser)")
        #expect(browser.contains(" strong") && !browser.contains("!strong"), "\(browser)")
        try tmux.send("S")
        let view = try tmux.waitFor("Security Recommendations")
        #expect(view.contains("weakling on example.com (shared)"), "\(view)")
        #expect(view.contains("weak: estimated"), "\(view)")
        #expect(view.contains("clear on http://plain.example"), "\(view)")
        #expect(view.contains("insecure: the server is http-only"), "\(view)")
        #expect(!view.contains("strong on"), "\(view)")
        #expect(!view.contains("pw-weakling"), "\(view)")
        try tmux.send("Enter")
        try tmux.send("q")
        _ = try tmux.waitFor("EXITED 0")
    }
}
