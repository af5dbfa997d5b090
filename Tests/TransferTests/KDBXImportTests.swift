import Foundation
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
@testable import KeyshelfTransfer

/// KeePass databases written by python3-pykeepass (scripts/make-kdbx-fixtures) (issue 17 item 4).
@Suite struct KDBXImportTests {
    private func read(_ name: String, password: String = "kdbx-pass") throws -> ImportSource {
        try ImportSource.read(path: FixtureFiles.path(name)) { Secret(utf8: password) }
    }

    @Test(arguments: ["kdbx4-argon2d-aes.kdbx", "kdbx4-argon2id-chacha20.kdbx"])
    func entriesGroupsTOTPAndNotesAreRead(name: String) throws {
        let source = try read(name)
        #expect(source.format == .kdbx)
        let plan = ImportPlan(source: source, existing: [], store: .shared)
        #expect(plan.additions.map(\.server.host) == ["github.com", "gist.github.com", "totp.example"])
        let github = plan.additions[0]
        #expect(github.account == "octocat")
        #expect(github.password == Secret(utf8: "p\"w<&>é"))
        #expect(github.label == "Work/Dev/GitHub")
        #expect(github.path == "/login")
        #expect(github.comment == "recovery codes\nin the safe\nPIN: 1234")
        #expect(github.otpauth == "otpauth://totp/GitHub:octocat?secret=JBSWY3DPEHPK3PXP&issuer=GitHub")
        #expect(github.creationDate.map { abs($0.timeIntervalSinceNow) < 86_400 * 365 * 10 } == true)
        #expect(plan.additions[2].otpauth == "otpauth://totp/KeePass?secret=JBSWY3DPEHPK3PXP&period=30&digits=8")
        #expect(plan.additions[2].label == "Legacy TOTP", "the root group is not a folder")
        #expect(plan.failed.map(\.reason) == ["no URL (server)"])
        #expect(plan.skipped.map(\.reason) == ["in the recycle bin"])
        #expect(plan.skipped.first?.position.description.hasPrefix("entry 4 (line ") == true)
    }

    @Test func kdbx31WithAESKDFAndSalsa20() throws {
        let plan = ImportPlan(source: try read("kdbx31-aeskdf-aes.kdbx"), existing: [], store: .shared)
        #expect(plan.additions.count == 1)
        let entry = try #require(plan.additions.first)
        #expect(entry.server.host == "example.com" && entry.account == "alice")
        // The history entry's protected value sits between the password and
        // the otp in the inner stream: both come out right only if it is consumed.
        #expect(entry.password == Secret(utf8: "kp3-pw&amp;"))
        #expect(entry.otpauth == "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP")
        #expect(entry.label == "Social/Example")
        #expect(entry.comment == "three.one")
        #expect(entry.creationDate == ISO8601DateFormatter().date(from: "2021-02-03T04:05:06Z"))
        #expect(plan.source.notes.first?.reason.contains("the password look(s) HTML-escaped") == true)
    }

    @Test func wrongPasswordIsRefusedNamingKeyFiles() throws {
        #expect(throws: TransferError.wrongSourcePassword(path: FixtureFiles.path("kdbx4-argon2d-aes.kdbx"))) {
            try read("kdbx4-argon2d-aes.kdbx", password: "nope")
        }
        #expect(TransferError.wrongSourcePassword(path: "db.kdbx").description.contains("key file"))
    }

    @Test func aFlippedByteIsDamageNotAWrongPassword() throws {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: FixtureFiles.path("kdbx4-argon2d-aes.kdbx"))))
        bytes[bytes.count - 40] ^= 1
        let copy = SecureBytes(copying: bytes)
        #expect {
            try copy.withUnsafeBytes { try KDBXReader.read($0, path: "x.kdbx", password: Secret(utf8: "kdbx-pass")) }
        } throws: { error in
            if case .damagedDatabase = error as? TransferError { return true }
            return false
        }
    }
}
