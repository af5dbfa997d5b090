import Foundation
import KeyshelfTestSupport
import Testing

/// Sign in with Apple accounts read through the agent print what the direct
/// path prints (the record's kind 2, docs/agent-protocol.md).
@Suite struct SignInWithAppleAgentTests {
    @Test func listGetAndLoginMatchTheDirectPath() throws {
        let h = try AgentHarness()
        defer { h.stop() }
        try h.check(h.run(["add", "shop.example", "x7@privaterelay.appleid.com", "--sign-in-with-apple"]))
        try h.check(h.run(["add", "shop.example", "me@example.net", "--sign-in-with-apple", "--local"]))
        try h.check(h.run(["add", "shop.example", "bob", "--password-stdin"], stdin: "pw\n"))
        try h.check(h.run(["unlock"]))
        for command in [["list", "--json"], ["list"], ["search", "privaterelay", "--json"], ["get", "shop.example", "x7@privaterelay.appleid.com"],
                        ["get", "shop.example", "me@example.net", "--json"]] {
            let viaAgent = try h.run(command, withPassword: false)
            let direct = try h.run(command + ["--no-agent"])
            #expect(viaAgent.status == direct.status && viaAgent.stdout == direct.stdout && viaAgent.stderr == direct.stderr,
                    "\(command)\nagent: \(viaAgent)\ndirect: \(direct)")
        }
        let list = try h.run(["list", "--json"], withPassword: false)
        #expect(list.stdout.contains(#""signInWith":"apple""#) && list.stdout.contains(#""relay":true"#), "\(list)")
        #expect(try h.run(["get", "shop.example", "me@example.net"], withPassword: false).status == 3)
    }
}
