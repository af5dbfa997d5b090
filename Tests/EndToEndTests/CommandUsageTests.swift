import Foundation
import Testing
@testable import KeyshelfCLI

/// Usage lines of commands with sub-operations (`otp set`, `siwa verify`, …)
/// in `--help` and the man page's SYNOPSIS, from `CommandSpec.usages`.
@Suite struct CommandUsageTests {
    @Test func otpHelpListsEachFormOnceAndItsOwnJSON() throws {
        let help = Help.text(OtpCommand.spec)
        #expect(help.hasPrefix("""
            usage: keyshelf otp SERVER [ACCOUNT] [--at UNIX_SECONDS] [--json | --clip] [options]
                   keyshelf otp set SERVER ACCOUNT [options] < SECRET
                   keyshelf otp uri SERVER ACCOUNT [options]

            """))
        #expect(!help.contains("[ACCOUNT] [ACCOUNT]"))
        #expect(help.components(separatedBy: "\n  ACCOUNT ").count == 2, "ACCOUNT is described once")
        let json = try #require(help.split(separator: "\n").first { $0.hasPrefix("  --json") })
        #expect(!json.contains("password") && json.contains("code"), "\(json)")
    }

    @Test func theManPageSynopsisHasEveryForm() {
        let page = ManPage.page()
        for line in ["otp\nset SERVER ACCOUNT", "otp\nuri SERVER ACCOUNT", "siwa\nkey add KEY_ID", "siwa\nkey list",
                     "siwa\nclient\\-secret KEY_ID", "siwa\nverify ID_TOKEN"] {
            let parts = line.split(separator: "\n")
            #expect(page.contains(".B keyshelf \(parts[0])\n\(parts[1])"), "\(line)")
        }
        #expect(!page.contains("[ACCOUNT] [ACCOUNT]"))
        #expect(!page.contains("OPERATION [ARGUMENT] [KEY_ID]"))
    }

    /// add, rm and edit need ACCOUNT (the parser takes one positional, the
    /// ACCOUNT, only after --service): their usage says so; get's says when SERVER may be left out.
    @Test func theUsageShowsWhichPositionalsAreRequired() {
        for spec in [AddCommand.spec, RmCommand.spec, EditCommand.spec] {
            #expect(Help.usageLine(spec) == """
                usage: \(spec.invocation) SERVER ACCOUNT [options]
                       \(spec.invocation) --service NAME ACCOUNT [options]
                """)
        }
        #expect(Help.usageLine(GetCommand.spec) == """
            usage: keyshelf get SERVER [ACCOUNT] [options]
                   keyshelf get --service NAME [ACCOUNT] [options]
                   keyshelf get --client APPID [SERVER [ACCOUNT]] [options]
            """)
        #expect(!ManPage.page().contains("add SERVER [ACCOUNT]"))
    }

    @Test func aCommandWithoutUsagesKeepsItsPositionalLine() {
        let spec = CommandSpec(name: "demo", summary: "s", positionals: [.init(name: "SERVER", help: "h"),
                                                                         .init(name: "ACCOUNT", optional: true, help: "h")],
                               options: [.flag("--json", help: "j")])
        #expect(Help.usageLine(spec) == "usage: keyshelf demo SERVER [ACCOUNT] [options]")
        #expect(spec.synopses == ["SERVER [ACCOUNT] [options]"])
    }
}
