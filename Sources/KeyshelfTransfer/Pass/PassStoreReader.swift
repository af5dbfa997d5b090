import Foundation
import KeyshelfCrypto

/// Reads a pass or gopass store (`~/.password-store`, a directory holding
/// `.gpg-id`) into `ImportEntry`s (issue 17 item 4; docs/import.md, "pass").
///
/// Each `*.gpg` file (hidden files and directories such as `.git` left out)
/// is decrypted with the user's `gpg` (`GPGDecryptor`):
/// - the first line is the password;
/// - `login:`, `user:`, `username:` (any case) give the account; `url:` the
///   server; an `otpauth://` line the one-time secret; every other line is kept as notes.
/// - The path gives what the lines do not: in `github.com/alice.gpg` the
///   directory is the server and the file name the account; in
///   `Work/github.com.gpg` the file name is the server. A name is a server
///   when it holds a dot (or is `localhost`). The label is the entry's pass
///   name (`Work/github.com/alice`), so its directories are the folder (`LabelPath`).
/// A file gpg cannot decrypt refuses the whole import (all or nothing).
/// Symbolic links are never followed, and each one (to a file or a
/// directory, inside the store or not) is reported as skipped with that
/// reason, as is a `.gpg` name that is not a regular file.
enum PassStoreReader {
    /// The most `.gpg` files read; a store is a directory of small files.
    static let maxFiles = CSVReader.maxRows
    /// The largest decrypted file: 1 MiB, like a CSV field.
    static let maxFileBytes = CSVReader.maxFieldBytes

    /// Whether `path` is a directory holding `.gpg-id` (what `pass init` writes).
    static func isStore(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(".gpg-id"))
    }

    static func read(directory: String, gpg: GPGDecryptor? = GPGDecryptor.locate()) throws -> ImportSource {
        let files = try gpgFiles(in: directory)
        guard let gpg else {
            throw TransferError.unsupportedSource(path: directory, what: "a pass store",
                                                  hint: "no gpg on PATH to decrypt it; install gnupg")
        }
        var outcomes: [EntryOutcome] = []
        for (index, (relative, skip)) in files.enumerated() {
            if let skip {
                outcomes.append(.skipped(ReportedRow(position: RowPosition(row: index + 1, line: 0, noun: "entry"),
                                                     server: "", account: "", reason: skip, title: relative)))
                continue
            }
            let plaintext = try gpg.decrypt((directory as NSString).appendingPathComponent(relative), limit: maxFileBytes)
            outcomes.append(outcome(plaintext, relative: relative, number: index + 1))
        }
        return ImportSource(path: directory, format: .pass, rowCount: files.count, outcomes: outcomes)
    }

    /// The reason a symbolic link in the store is not read.
    static let symlinkSkipped = "a symbolic link, not followed (pass entries are read only as regular files inside the store)"

    /// Paths of the store's `.gpg` files relative to `directory`, sorted, each
    /// with the reason it is skipped (a symbolic link, not a regular file) or
    /// nil to read it; hidden entries left out.
    static func gpgFiles(in directory: String) throws -> [(path: String, skip: String?)] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else {
            throw TransferError.unreadable(path: directory, reason: "cannot list the directory")
        }
        var files: [(path: String, skip: String?)] = []
        while let relative = walker.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            let type = walker.fileAttributes?[.type] as? FileAttributeType
            if name.hasPrefix(".") {
                if type == .typeDirectory { walker.skipDescendants() }
                continue
            }
            // The enumerator lists a link without following it; said in the report rather than dropped silently.
            if type == .typeSymbolicLink {
                files.append((relative, symlinkSkipped))
            } else if name.hasSuffix(".gpg"), type != .typeDirectory {
                files.append((relative, type == .typeRegular ? nil : "not a regular file"))
            } else {
                continue
            }
            if files.count > maxFiles { throw TransferError.tooManyRows(path: directory, line: 0, limit: maxFiles) }
        }
        return files.sorted { $0.path < $1.path }
    }

    static func isHostLike(_ name: String) -> Bool {
        name.contains(".") || name.lowercased() == "localhost"
    }

    /// Maps one decrypted file at `relative` (`Work/github.com/alice.gpg`).
    static func outcome(_ plaintext: SecureBytes, relative: String, number: Int) -> EntryOutcome {
        let position = RowPosition(row: number, line: 0, noun: "entry")
        let components = String(relative.dropLast(4)).split(separator: "/").map(String.init)
        let name = components.last ?? ""
        let parents = Array(components.dropLast())
        let (password, lines) = plaintext.withUnsafeBytes { bytes -> (Secret, [String]) in
            let end = bytes.firstIndex(of: 0x0A) ?? bytes.count
            var passwordEnd = end
            if passwordEnd > 0, bytes[passwordEnd - 1] == 0x0D { passwordEnd -= 1 }
            let rest = end < bytes.count ? String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(end + 1)...]), as: UTF8.self) : ""
            return (Secret(storage: plaintext, range: 0..<passwordEnd),
                    rest.split(separator: "\n", omittingEmptySubsequences: false).map { String($0.hasSuffix("\r") ? $0.dropLast() : $0) })
        }
        var account = ""
        var url = ""
        var otpauth = ""
        var notes: [String] = []
        for line in lines {
            let lowered = line.lowercased()
            let key = line.firstIndex(of: ":").map { String(line[..<$0]).lowercased().trimmingSpaces() } ?? ""
            if let colon = line.firstIndex(of: ":"), ["login", "user", "username", "url"].contains(key) {
                let value = String(line[line.index(after: colon)...]).trimmingSpaces()
                if key == "url" { if url.isEmpty { url = value; continue } } else if account.isEmpty { account = value; continue }
            } else if lowered.trimmingSpaces().hasPrefix("otpauth://"), otpauth.isEmpty {
                otpauth = line.trimmingSpaces()
                continue
            }
            notes.append(line)
        }
        while notes.last?.isEmpty == true { notes.removeLast() }
        if url.isEmpty, let parent = parents.last, isHostLike(parent) {
            url = parent
            if account.isEmpty { account = name }
        } else if url.isEmpty, isHostLike(name) {
            url = name
        }
        // The label is the entry's pass name (`Work/github.com/alice`), what `pass show` takes.
        return .entry(ImportEntry(
            position: position, uris: url.isEmpty ? [] : [url], account: account, password: password,
            title: name, folder: parents.joined(separator: "/"), notes: notes.joined(separator: "\n"), otpauth: otpauth))
    }
}
