import Foundation
import Testing

/// `keyshelf otp` at the limits of its numbers through the real binary:
/// `--at` near and beyond `Int64`, a HOTP counter that cannot grow, and
/// the label `otp uri` prints for a bare secret.
@Suite struct OtpLimitsCommandTests {
    func vault(_ secret: String) throws -> TestVault {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw", local: true)
        let set = try vault.run(["otp", "set", "example.com", "alice"], stdin: secret + "\n")
        guard set.status == 0 else { throw SetupError(run: set) }
        return vault
    }

    @Test func theLastSecondOfTimeGivesACodeAndNeverTraps() throws {
        let vault = try vault("otpauth://totp/Example:alice?secret=\(OtpCommandTests.secret)&period=2")
        let json = try vault.run(["otp", "example.com", "--at", "9223372036854775807", "--json"])
        #expect(json.status == 0, "\(json)")
        let object = try #require(try json.json() as? [String: Any], "\(json)")
        #expect(object["remaining"] as? Int == 1)
        // --clip there has no next period to wait for; without a clipboard it fails cleanly, never by a trap.
        let clip = try vault.run(["otp", "example.com", "alice", "--at", "9223372036854775807", "--clip"])
        // A trap ends the process by a signal (terminationStatus 4 or 5), not with 0 or 1.
        #expect([0, 1].contains(clip.status), "\(clip)")
        #expect(!clip.stderr.contains("runtime failure"), "\(clip)")
    }

    @Test(arguments: ["9223372036854775808", "-9223372036854775808", "-9223372036854775809", "99999999999999999999"])
    func timesOutsideInt64OrBefore1970AreUsageErrors(time: String) throws {
        let vault = try vault("otpauth://totp/Example:alice?secret=\(OtpCommandTests.secret)&period=2")
        let run = try vault.run(["otp", "example.com", "--at", time, "--clip"])
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr.contains("--at"), "\(run)")
    }

    @Test func anExhaustedHOTPCounterIsRefusedNotRepeated() throws {
        let vault = try vault("otpauth://hotp/Bank:alice?secret=\(OtpCommandTests.secret)&counter=9223372036854775806")
        let first = try vault.run(["otp", "example.com"])
        #expect(first.status == 0, "\(first)")
        for _ in 0..<2 {
            let next = try vault.run(["otp", "example.com"])
            #expect(next.status == 2, "\(next)")
            #expect(next.stdout.isEmpty, "\(next)")
            #expect(next.stderr.contains("maximum"), "\(next)")
        }
        let beyond = try vault.run(["otp", "set", "example.com", "alice"],
                                   stdin: "otpauth://hotp/x?secret=\(OtpCommandTests.secret)&counter=18446744073709551616\n")
        #expect(beyond.status == 2, "\(beyond)")
        #expect(beyond.stderr.contains("0 to 9223372036854775807"), "\(beyond)")
    }

    @Test func aBareSecretPrintsWithTheAccountAndServer() throws {
        let vault = try vault("JBSWY3DPEHPK3PXP")
        let uri = try vault.run(["otp", "uri", "example.com", "alice", "--yes"])
        #expect(uri.status == 0, "\(uri)")
        #expect(uri.stdout == "otpauth://totp/example.com:alice?secret=JBSWY3DPEHPK3PXP&issuer=example.com&algorithm=SHA1&digits=6&period=30\n")
    }
}
