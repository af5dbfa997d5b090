import Foundation
import Testing

/// `keyshelf otp --at` on period boundaries and far times (issue 16, "clock
/// edge cases"), and `--clip`'s usage rules; the copy itself is tested on a
/// private X display in TUITests (`OtpClipEndToEndTests`).
@Suite struct OtpClockCommandTests {
    func vault(period: Int = 30) throws -> TestVault {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw", local: true)
        let set = try vault.run(["otp", "set", "example.com", "alice"],
                                stdin: "otpauth://totp/Example:alice?secret=\(OtpCommandTests.secret)&digits=8&period=\(period)\n")
        guard set.status == 0 else { throw SetupError(run: set) }
        return vault
    }

    func code(_ vault: TestVault, at time: String) throws -> (code: String, remaining: Int) {
        let run = try vault.run(["otp", "example.com", "--at", time, "--json"])
        let object = try #require(try run.json() as? [String: Any], "\(run)")
        return (try #require(object["code"] as? String), try #require(object["remaining"] as? Int))
    }

    @Test func theCodeChangesExactlyOnThePeriodBoundary() throws {
        let vault = try vault()
        #expect(try code(vault, at: "0") == ("84755224", 30))
        #expect(try code(vault, at: "29") == ("84755224", 1))
        #expect(try code(vault, at: "30") == ("94287082", 30))
        #expect(try code(vault, at: "59") == ("94287082", 1))
        #expect(try code(vault, at: "60").code != "94287082")
        // Beyond 2^32 seconds (RFC 6238's last vector, year 2603).
        #expect(try code(vault, at: "20000000000") == ("65353130", 10))
    }

    @Test func longerPeriodsCountFromTheirOwnBoundaries() throws {
        let vault = try vault(period: 60)
        let first = try code(vault, at: "59")
        #expect(first.remaining == 1)
        #expect(try code(vault, at: "0").code == first.code)
        #expect(try code(vault, at: "60").remaining == 60)
        #expect(try code(vault, at: "60").code != first.code)
    }

    @Test(arguments: [["--at", "-1"], ["--at", "1.5"], ["--at", "soon"], ["--clip", "--json"]])
    func badTimesAndClipWithJSONAreUsageErrors(_ extra: [String]) throws {
        let vault = try vault()
        let run = try vault.run(["otp", "example.com"] + extra)
        #expect(run.status == 2, "\(run)")
        #expect(run.stdout.isEmpty)
    }

    @Test func clipBelongsToTheCodeOnly() throws {
        let vault = try vault()
        let run = try vault.run(["otp", "uri", "example.com", "alice", "--clip", "--yes"])
        #expect(run.status == 2, "\(run)")
        #expect(run.stdout.isEmpty, "the URI is not printed")
        #expect(!(try vault.run(["otp", "--help"]).stdout.contains("not available yet")))
    }
}
