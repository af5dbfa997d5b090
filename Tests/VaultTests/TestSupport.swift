import Foundation
import KeyshelfCrypto
@testable import KeyshelfVault

/// A fresh temporary vault directory, removed by `cleanUp()`.
struct TemporaryVault {
    let directory: VaultDirectory
    var path: String { directory.url.path }

    init() {
        let url = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("keyshelf-vault-tests-\(UUID().uuidString)", isDirectory: true)
        directory = VaultDirectory(url: url)
    }

    func file(_ store: Store) -> String { path + "/" + store.fileName }

    func cleanUp() {
        try? FileManager.default.removeItem(at: directory.url)
    }
}

let testPassword = Secret(utf8: "correct horse battery staple")

/// An internet password item with predictable fields.
func sampleItem(_ n: Int, server: String = "example.com", accessible: Accessible = .whenUnlocked) -> Item {
    Item(
        id: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", n))!,
        account: "user\(n)@example.com", server: "\(n).\(server)", port: n % 7 == 0 ? 8443 : 0,
        label: "Sample \(n)", comment: n % 3 == 0 ? "note ✓ \(n)" : "",
        creationDate: Date(timeIntervalSince1970: 1_700_000_000 + Double(n)),
        accessible: accessible, synchronizable: accessible == .whenUnlocked,
        password: Secret(utf8: "pw-\(n)-\u{1F511}"))
}

/// `bytes` with its header checksum (bytes 128..<144) recomputed, as a
/// hostile or future file that changed a header field would have it.
func withValidChecksum(_ bytes: [UInt8]) -> [UInt8] {
    var out = bytes
    let sum = out.withUnsafeBytes { GenericHash.hash(UnsafeRawBufferPointer(rebasing: $0[0..<128]), byteCount: 16) }
    out.replaceSubrange(128..<144, with: sum)
    return out
}

func readBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

func writeBytes(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}
