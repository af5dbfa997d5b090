import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// Vault files written by format v1 and committed under Fixtures/v1 (see
/// Fixtures/README.md): a change that can no longer read them fails here.
/// Re-record on purpose with `KEYSHELF_RECORD_FIXTURES=1 swift test --filter KnownAnswerTests`.
@Suite struct KnownAnswerTests {
    static let password = Secret(utf8: "keyshelf fixture v1")

    static func id(_ n: Int) -> UUID { UUID(uuidString: String(format: "F1C5D000-0000-4000-8000-%012d", n))! }
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    static let local: [Item] = [
        Item(
            id: id(1), itemClass: .genericPassword, account: "deploy", service: "ssh:build.example",
            protocol: "", authenticationType: "", label: "ビルドサーバー", comment: "line one\nline two",
            creationDate: date(1_700_000_000.25), modificationDate: date(1_700_000_100.5),
            accessible: .whenUnlockedThisDeviceOnly, accessControl: .userPresence,
            password: Secret(utf8: "x9-local-only")),
        Item(
            id: id(2), account: "admin", server: "router.lan", protocol: "http", port: 8080,
            path: "/login", securityDomain: "Router Realm", authenticationType: "httpBasic",
            creationDate: date(1_690_000_000), accessible: .afterFirstUnlock,
            password: Secret(utf8: "")),
    ]

    static let shared: [Item] = [
        Item(
            id: id(3), account: "marie@example.org", server: "xn--fa-hia.example", port: 8443,
            label: "faß", comment: "emoji 🔑 and combining é", otpauth: "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP",
            creationDate: date(1_710_000_000.125), synchronizable: true,
            password: Secret(utf8: "abc-DEF-345-ghk")),
        Item(
            id: id(4), account: "old", server: "gone.example", creationDate: date(1_600_000_000),
            modificationDate: date(1_720_000_000), synchronizable: true, password: nil, isDeleted: true),
    ]

    static var sourceFixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/v1")
    }

    @Test func recordFixturesWhenAsked() throws {
        guard ProcessInfo.processInfo.environment["KEYSHELF_RECORD_FIXTURES"] == "1" else { return }
        try? FileManager.default.removeItem(at: Self.sourceFixtures)
        let session = try VaultDirectory(url: Self.sourceFixtures).create(password: Self.password, limits: .minimum)
        try session.modify { contents in
            contents.local = Self.local
            contents.shared = Self.shared
        }
        for extra in ["backups", "keyshelf.lock"] {
            try? FileManager.default.removeItem(at: Self.sourceFixtures.appendingPathComponent(extra))
        }
    }

    /// A private copy of the committed fixture directory.
    /// - Parameter version: the fixture directory, `v1`, `v2` or `v3`.
    static func fixtureCopy(_ version: String = "v1") throws -> TemporaryVault {
        let vault = TemporaryVault()
        try FileManager.default.createDirectory(atPath: vault.path, withIntermediateDirectories: true)
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil)).appendingPathComponent(version)
        for store in Store.allCases {
            try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent(store.fileName).path, toPath: vault.file(store))
        }
        return vault
    }

    @Test func version1FilesStillOpen() throws {
        let vault = try Self.fixtureCopy()
        defer { vault.cleanUp() }
        let contents = try vault.directory.unlock(password: Self.password).contents()
        #expect(contents.local == Self.local)
        #expect(contents.shared == Self.shared)
        #expect(throws: VaultError(.wrongPassword, file: "", reason: "")) {
            try vault.directory.unlock(password: testPassword)
        }
    }

    @Test func version1HeaderMatchesTheDocumentedLayout() throws {
        let vault = try Self.fixtureCopy()
        defer { vault.cleanUp() }
        for store in Store.allCases {
            let bytes = try readBytes(vault.file(store))
            #expect(Array(bytes[0..<8]) == [0x89, 0x4B, 0x53, 0x56, 0x0D, 0x0A, 0x1A, 0x0A])
            #expect(Array(bytes[8..<10]) == [1, 0])                       // version 1
            #expect(bytes[10] == (store == .local ? 1 : 2))
            #expect(Array(bytes[11..<15]) == [0, 0, 1, 0])                // 65536-byte chunks
            #expect(bytes[15] == 1)                                       // Argon2id v1.3
            #expect(Array(bytes[16..<24]) == [1, 0, 0, 0, 0, 0, 0, 0])    // opslimit 1
            #expect(Array(bytes[24..<32]) == [0, 0x20, 0, 0, 0, 0, 0, 0]) // memlimit 8192
            let payload = bytes[120..<128].reversed().reduce(0) { $0 << 8 | Int($1) }
            #expect(payload == bytes.count - 144)
            // One secretstream chunk: 24-byte header + 17 bytes overhead + plaintext.
            #expect(payload > 24 + 17)
        }
    }

    /// The encoder writes v1 byte for byte: re-encoding the items decoded from
    /// a fixture gives its plaintext back (a save compares these bytes to skip
    /// unchanged files), and a re-sealed file opens to the same items.
    @Test func reEncodingAFixtureGivesTheSameBytes() throws {
        let vault = try Self.fixtureCopy()
        defer { vault.cleanUp() }
        let session = try vault.directory.unlock(password: Self.password)
        for store in Store.allCases {
            let path = vault.file(store)
            let file = try #require(try FileSystem.read(path))
            var opened = try VaultSession.openFile(file, store: store, password: Self.password, reusing: nil, path: path)
            var items = opened.items
            let plaintext = RecordCodec.encode(&items)
            #expect(plaintext == opened.wholePlaintext())
            #expect(items == (store == .local ? Self.local : Self.shared))
        }
        try session.modify { $0.shared[0].comment = "re-sealed" }
        let contents = try vault.directory.unlock(password: Self.password).contents()
        #expect(contents.local == Self.local)
        #expect(contents.shared[0].comment == "re-sealed" && Array(contents.shared[1...]) == Array(Self.shared[1...]))
    }
}
