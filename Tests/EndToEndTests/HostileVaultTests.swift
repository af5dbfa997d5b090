import Foundation
import KeyshelfTestSupport
import Testing

/// Vault files made to hurt the reader, seen through the real binary
/// (issue 11): a clear message and exit 7, never a crash, nothing modified.
@Suite struct HostileVaultTests {
    /// `bytes` with header bytes 11..<15 (the chunk size) set to 0 and the checksum recomputed.
    static func withChunkSizeZero(_ bytes: Data) throws -> Data {
        try rewritingHeader(bytes) { $0.replaceSubrange(11..<15, with: [0, 0, 0, 0]) }
    }

    /// `bytes` changed by `edit`, with the header checksum recomputed
    /// (BLAKE2b-128 of bytes 0..<128, by `b2sum -l 128`), as a hostile file would have it.
    static func rewritingHeader(_ bytes: Data, _ edit: (inout Data) -> Void) throws -> Data {
        var out = bytes
        edit(&out)
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-header-\(UUID().uuidString)")
        try out.prefix(128).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let sum = try Program.run("/usr/bin/b2sum", ["-l", "128", input.path], environment: [:])
        let hex = Array(sum.stdout.prefix(32))
        let checksum = stride(from: 0, to: 32, by: 2).map { UInt8(String(hex[$0..<($0 + 2)]), radix: 16)! }
        out.replaceSubrange(128..<144, with: checksum)
        return out
    }

    @Test(arguments: ["local.vault", "shared.vault"])
    func listOnAChunkSizeOfZeroExitsSevenAndSaysWhy(name: String) throws {
        let vault = try TestVault()
        try vault.add("example.com", "alice", password: "pw")
        let file = vault.directory.appendingPathComponent(name)
        try Self.withChunkSizeZero(try Data(contentsOf: file)).write(to: file)
        let before = try vault.snapshot()
        let result = try vault.run(["list"])
        #expect(result.status == 7, "\(result)")
        #expect(result.stderr.contains(name) && result.stderr.contains("invalid payload chunk size (0 bytes)"), "\(result)")
        #expect(try vault.snapshot() == before)
    }

    @Test func listOnAnImageInPlaceOfTheVaultExitsSeven() throws {
        let vault = try TestVault()
        let file = vault.directory.appendingPathComponent("local.vault")
        var gif = Data("GIF89a".utf8) + Data([0x10, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        gif += Data((0..<400).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        try gif.write(to: file)
        let result = try vault.run(["list"])
        #expect(result.status == 7, "\(result)")
        #expect(result.stderr.contains("not a keyshelf vault"), "\(result)")
        #expect(try Data(contentsOf: file) == gif)
    }

    @Test func initAdoptingASharedVaultWithAChunkSizeOfZeroFailsAndLeavesIt() throws {
        let vault = try TestVault()
        let shared = vault.directory.appendingPathComponent("shared.vault")
        let hostile = try Self.withChunkSizeZero(try Data(contentsOf: shared))
        try FileManager.default.removeItem(at: vault.directory.appendingPathComponent("local.vault"))
        try hostile.write(to: shared)
        let result = try vault.run(["init"])
        #expect(result.status == 7, "\(result)")
        #expect(result.stderr.contains("shared.vault") && result.stderr.contains("invalid payload chunk size (0 bytes)"), "\(result)")
        #expect(try vault.snapshot() == ["shared.vault": hostile])
    }
}
