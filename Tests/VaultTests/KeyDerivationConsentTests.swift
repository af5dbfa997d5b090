import Foundation
import Synchronization
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// Argon2id limits above this machine's are paid only after a yes
/// (issue 11 item 3, docs/vault-format.md "Argon2id limits above this machine's").
@Suite struct KeyDerivationConsentTests {
    /// Answers every request with `answer` and records them.
    final class Recording: KeyDerivationConsent {
        let answer: Bool
        let asked = Mutex<[KeyDerivationRequest]>([])
        init(_ answer: Bool) { self.answer = answer }
        func ask(_ request: KeyDerivationRequest) -> Bool {
            asked.withLock { $0.append(request) }
            return answer
        }
        var requests: [KeyDerivationRequest] { asked.withLock { $0 } }
    }

    /// Two passes over the minimum memory: higher than `.minimum`, and cheap.
    static let higher = PasswordHashLimits(opslimit: 2, memlimitBytes: PasswordHashLimits.minimum.memlimitBytes)

    /// A `shared.vault` made with `higher` limits and the test password, alone in its directory.
    static func sharedFileWithHigherLimits() throws -> [UInt8] {
        let other = TemporaryVault()
        defer { other.cleanUp() }
        try other.directory.create(password: testPassword, limits: higher).modify { $0.shared = [sampleItem(5)] }
        return try readBytes(other.file(.shared))
    }

    @Test func unlockAsksBeforeRunningAndARefusalIsTyped() throws {
        let vault = try OpenFailureTests.smallVault()
        defer { vault.cleanUp() }
        let shared = try Self.sharedFileWithHigherLimits()
        try writeBytes(shared, to: vault.file(.shared))
        let refusing = Recording(false)
        #expect(throws: VaultError(.kdfLimitsNotApproved, file: "", reason: "")) {
            try vault.directory.unlock(password: testPassword, keyDerivationConsent: refusing)
        }
        #expect(refusing.requests == [KeyDerivationRequest(file: vault.file(.shared), requested: Self.higher, usual: .minimum)])
        #expect(try readBytes(vault.file(.shared)) == shared)
        let approving = Recording(true)
        #expect(try vault.directory.unlock(password: testPassword, keyDerivationConsent: approving).contents().shared == [sampleItem(5)])
        #expect(approving.requests.count == 1)
    }

    @Test func lowerOrEqualLimitsAreNotAsked() throws {
        let vault = try OpenFailureTests.smallVault()
        defer { vault.cleanUp() }
        let consent = Recording(false)
        _ = try vault.directory.unlock(password: testPassword, keyDerivationConsent: consent)
        #expect(consent.requests.isEmpty)
    }

    @Test func initAdoptingAsksOnceBeforeTheLockAndReplaysInside() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        try FileSystem.makeDirectory(vault.path)
        try writeBytes(try Self.sharedFileWithHigherLimits(), to: vault.file(.shared))
        let consent = Recording(true)
        let session = try vault.directory.create(password: testPassword, limits: .minimum, keyDerivationConsent: consent)
        #expect(consent.requests.count == 1)
        #expect(session.limits == Self.higher)
    }

    @Test func initAdoptingRefusesWithoutWritingLocalVault() throws {
        let vault = TemporaryVault()
        defer { vault.cleanUp() }
        try FileSystem.makeDirectory(vault.path)
        let shared = try Self.sharedFileWithHigherLimits()
        try writeBytes(shared, to: vault.file(.shared))
        #expect(throws: VaultError(.kdfLimitsNotApproved, file: "", reason: "")) {
            try vault.directory.create(password: testPassword, limits: .minimum)
        }
        #expect(!vault.directory.exists)
        #expect(try readBytes(vault.file(.shared)) == shared)
    }
}
