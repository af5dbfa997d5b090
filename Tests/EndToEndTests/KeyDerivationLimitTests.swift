import Foundation
import Testing

/// A `shared.vault` asking for more Argon2id than `local.vault` (issue 11
/// item 3): asked in a terminal, refused without one, never paid silently.
@Suite struct KeyDerivationLimitTests {
    /// A vault whose `shared.vault` was made by `init --kdf interactive` with
    /// the same master password (a machine that uses higher limits), while
    /// its `local.vault` uses the minimum.
    static func vaultWithHigherSharedLimits() throws -> TestVault {
        let vault = try TestVault()
        let other = try TestVault(initialize: false)
        let made = try other.run(["init", "--kdf", "interactive"])
        guard made.status == 0 else { throw SetupError(run: made) }
        let shared = vault.directory.appendingPathComponent("shared.vault")
        try FileManager.default.removeItem(at: shared)
        try FileManager.default.copyItem(at: other.directory.appendingPathComponent("shared.vault"), to: shared)
        return vault
    }

    @Test func withoutATerminalHigherLimitsAreRefusedWithoutRunning() throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw")
        let file = vault.directory.appendingPathComponent("shared.vault")
        // Two passes instead of one: had Argon2id run, the key would not fit ("another master password", exit 5).
        try HostileVaultTests.rewritingHeader(try Data(contentsOf: file)) { $0[16] = 2 }.write(to: file)
        let before = try vault.snapshot()
        let result = try vault.run(["list"])
        #expect(result.status == 7, "\(result)")
        #expect(result.stderr.contains("shared.vault") && result.stderr.contains("tampered") && result.stderr.contains("terminal"), "\(result)")
        #expect(try vault.snapshot() == before)
    }

    @Test func aTerminalIsAskedAndContinueOpensTheVault() throws {
        let vault = try Self.vaultWithHigherSharedLimits()
        let result = try PseudoTerminal.run(["list"], steps: [
            .init(expect: "Run Argon2id with Higher Limits?", send: ""),
            .init(expect: "Choice [1]: ", send: "2\n"),
        ], environment: vault.environment)
        #expect(result.status == 0, "\(result)")
    }

    @Test func aTerminalIsAskedAndTheDefaultDeclines() throws {
        let vault = try Self.vaultWithHigherSharedLimits()
        let before = try vault.snapshot()
        let result = try PseudoTerminal.run(["list"], steps: [
            .init(expect: "Choice [1]: ", send: "\n"),
        ], environment: vault.environment)
        #expect(result.status == 7, "\(result)")
        #expect(result.stdout.contains("Declined"), "\(result)")
        #expect(try vault.snapshot() == before)
        let unattended = try vault.run(["list"])
        #expect(unattended.status == 7, "\(unattended)")
    }

    @Test func initAdoptingASharedVaultWithHigherLimitsThanItsLevelAsksFirst() throws {
        let source = try Self.vaultWithHigherSharedLimits()
        let vault = try TestVault(initialize: false)
        try FileManager.default.createDirectory(at: vault.directory, withIntermediateDirectories: true)
        let shared = vault.directory.appendingPathComponent("shared.vault")
        try FileManager.default.copyItem(at: source.directory.appendingPathComponent("shared.vault"), to: shared)
        let refused = try vault.run(["init"])
        #expect(refused.status == 7, "\(refused)")
        #expect(refused.stderr.contains("tampered"), "\(refused)")
        #expect(try vault.snapshot().keys.sorted() == ["shared.vault"])
        let adopted = try vault.run(["init", "--kdf", "interactive"])
        #expect(adopted.status == 0, "\(adopted)")
    }
}
