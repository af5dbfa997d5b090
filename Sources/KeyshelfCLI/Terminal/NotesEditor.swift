import Foundation
import Glibc
import KeyshelfCredentials

/// `edit --edit-notes`: the notes in `$VISUAL` / `$EDITOR` (else `vi`) on a
/// file in a private directory (mode 0700, file 0600) on tmpfs where there
/// is one (`$XDG_RUNTIME_DIR`, else `/dev/shm`), overwritten with zeros and
/// removed afterwards, also when the editor fails (issue 13 rule 5).
enum NotesEditor {
    /// The edited notes, one trailing newline dropped.
    /// - Throws: `CLIError` (usage) without a terminal; (canceled) when the
    ///   editor exits non-zero (nothing changes); (failure) when the file
    ///   cannot be made or read.
    static func edit(_ current: String, _ context: CommandContext) throws(CLIError) -> String {
        guard context.terminal() != nil else {
            throw CLIError(.usage, "--edit-notes needs a terminal for the editor; use --notes-stdin")
        }
        let base = [context.environment["XDG_RUNTIME_DIR"], "/dev/shm", NSTemporaryDirectory()]
            .compactMap { $0 }.first { isWritableDirectory($0) } ?? "/tmp"
        var template = Array((base + "/keyshelf-notes-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CLIError(.failure, "cannot make a private directory for the notes in \(base): \(String(cString: strerror(errno)))")
        }
        let directory = String(cString: made)
        let file = directory + "/notes.txt"
        defer {
            wipe(file)
            rmdir(directory)
        }
        let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CLIError(.failure, "cannot create \(file): \(String(cString: strerror(errno)))") }
        let bytes = Array((current.isEmpty ? "" : current + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else { throw CLIError(.failure, "cannot write \(file)") }

        let editor = context.environment["VISUAL"] ?? context.environment["EDITOR"] ?? "vi"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", editor + " \"$1\"", "sh", file]
        process.environment = context.environment
        guard let tty = FileHandle(forUpdatingAtPath: "/dev/tty") else {
            throw CLIError(.usage, "--edit-notes needs a terminal for the editor; use --notes-stdin")
        }
        process.standardInput = tty
        process.standardOutput = tty
        process.standardError = tty
        do {
            try process.run()
        } catch {
            throw CLIError(.failure, "cannot start the editor \(InertText.quoted(editor)): \(error)")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CLIError(.canceled, "the editor exited with status \(process.terminationStatus); the notes were not changed")
        }
        guard let data = FileManager.default.contents(atPath: file), var text = String(data: data, encoding: .utf8) else {
            throw CLIError(.failure, "cannot read the edited notes (not UTF-8 text?); the notes were not changed")
        }
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    private static func isWritableDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue && access(path, W_OK) == 0
    }

    /// Overwrites the file with zeros (as long as it is now), then removes it.
    private static func wipe(_ path: String) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        if fd >= 0 {
            var info = stat()
            if fstat(fd, &info) == 0, info.st_size > 0 {
                let zeros = [UInt8](repeating: 0, count: Int(info.st_size))
                _ = zeros.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                fsync(fd)
            }
            close(fd)
        }
        unlink(path)
    }
}
