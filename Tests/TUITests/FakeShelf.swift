import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfTransfer
import KeyshelfVault
import KeyshelfClipboard
@testable import KeyshelfTUI

/// An in-memory `Shelf` that asks consent like the domain layer (DESIGN §5).
final class FakeShelf: Shelf {
    var items: [ShelfEntry]
    var passwords: [UUID: String]
    var generated = 0
    /// The server each `generatePassword(for:)` call was made for, in order.
    var generatedFor: [String?] = []
    var master = "master"
    var locked = false

    init(_ entries: [(server: String, port: Int?, account: String, password: String, store: Store)] = FakeShelf.sample) {
        items = []
        passwords = [:]
        for e in entries {
            let record = ShelfEntry(server: e.server, port: e.port, account: e.account, store: e.store, comment: "note for \(e.account)")
            items.append(record)
            passwords[record.id] = e.password
        }
    }

    static let sample: [(server: String, port: Int?, account: String, password: String, store: Store)] = [
        ("bücher.example", nil, "anna", "pw-anna", .shared),
        ("bücher.example", nil, "bernd", "pw-bernd", .local),
        ("git.example.org", 8443, "ci-bot", "pw-ci", .shared),
        ("mail.example.com", nil, "me@example.com", "pw-mail", .shared),
        ("日本語.example", nil, "太郎", "pw-taro", .local),
    ]

    func records() throws -> [ShelfEntry] { items }

    /// The fields of `keyshelf search` (host as shown, port, account, label, notes), case-insensitive.
    func search(_ query: String) -> [Int] {
        let needle = query.lowercased()
        return items.indices.filter { i in
            [items[i].server, items[i].port.map(String.init) ?? "", items[i].account, items[i].label, items[i].comment]
                .contains { $0.lowercased().contains(needle) }
        }
    }

    func password(of record: ShelfEntry, for purpose: RevealPurpose, prompts: UserPrompts) throws -> Secret {
        if record.requiresUserPresence {
            guard let typed = prompts.askMasterPassword(reason: "\(purpose.rawValue) \(record.account)", verify: { [master] in
                $0.unsafeString() == master
            }) else { throw ConsentDeclined("no master password") }
            guard typed.unsafeString() == master else { throw TestError(message: "wrong master password (errSecAuthFailed -25293)") }
        }
        return Secret(utf8: passwords[record.id]!)
    }

    func add(server: String, account: String, password: Secret, store: Store, label: String, comment: String,
             prompts: UserPrompts) throws -> ServerName {
        guard !server.contains(" ") else { throw TestError(message: "Invalid server \"\(server)\" (errSecParam -50).") }
        var record = ShelfEntry(server: server, account: account, store: store, comment: comment)
        record.label = label
        items.append(record)
        passwords[record.id] = password.unsafeString()
        return try ServerName(parsing: server)
    }

    func update(_ record: ShelfEntry, account: String, password: Secret?, comment: String, prompts: UserPrompts) throws {
        if password != nil {
            guard prompts.ask(title: "Update Saved Password?", message: "Update \(record.account) for \(record.server)?", buttons: ["Not Now", "Update"],
                              destructive: [1]) == 1 else {
                throw ConsentDeclined()
            }
        }
        guard let i = items.firstIndex(where: { $0.id == record.id }) else { return }
        items[i].account = account
        items[i].comment = comment
        if let password { passwords[record.id] = password.unsafeString() }
    }

    func delete(_ record: ShelfEntry, prompts: UserPrompts) throws {
        guard prompts.ask(title: "Delete Saved Password?", message: "Delete \(record.account) for \(record.server)?", buttons: ["Cancel", "Delete"],
                          destructive: [1]) == 1 else {
            throw ConsentDeclined()
        }
        items.removeAll { $0.id == record.id }
    }

    func generatePassword(for server: String?) throws -> (password: Secret, summary: String) {
        generated += 1
        generatedFor.append(server)
        return (Secret(utf8: "abc-DEF-\(generated)45-xyz"), "xxx-xxx-xxx-xxx from three character sets")
    }

    func login(server: ServerName, prompts: UserPrompts) throws -> ShelfEntry? {
        items.first { $0.domain == .server(server) && $0.store == .local } ?? items.first { $0.domain == .server(server) }
    }

    /// Import is tested over the real facade (`ImportTests`), not this fake.
    func planImport(path: String, format: ImportFormat?, store: Store) throws -> ImportPlan {
        throw TestError(message: "FakeShelf does not import")
    }

    func commitImport(_ plan: ImportPlan, prompts: UserPrompts) throws -> ImportReport {
        throw TestError(message: "FakeShelf does not import")
    }

    func editMetadata(_ record: ShelfEntry, account: String, label: String?, server: String?, store: Store?, prompts: UserPrompts) throws {
        guard let i = items.firstIndex(where: { $0.id == record.id }) else { return }
        if let label { items[i].label = label }
        if let store { items[i].store = store }
    }

    /// Set by a test to stand for another process writing the vault; read once.
    var outsideChange = false
    func refreshIfChanged() throws -> Bool {
        defer { outsideChange = false }
        return outsideChange
    }

    func lock() { locked = true }
}

struct TestError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A clipboard that records what would go to the terminal.
func recordingClipboard() -> (Clipboard, () -> [[UInt8]]) {
    final class Box { var writes: [[UInt8]] = [] }
    let box = Box()
    let clipboard = Clipboard(clearAfter: 45, environment: [:], writeTerminal: { box.writes.append($0) })
    return (clipboard, { box.writes })
}
