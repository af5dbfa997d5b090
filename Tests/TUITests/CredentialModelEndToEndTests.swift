import Foundation
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
}
