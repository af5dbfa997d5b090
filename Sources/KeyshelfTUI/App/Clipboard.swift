import Foundation
import KeyshelfCrypto

/// Copies text to the system clipboard and clears it after a delay unless it changed.
///
/// Always writes OSC 52 to the terminal (works over SSH and in tmux with
/// `set-clipboard on`); also pipes to `wl-copy` (Wayland) or `xclip` (X11)
/// when one is on PATH and its display is set. Clearing checks with
/// `wl-paste`/`xclip -o` that our value is still there; with OSC 52 alone
/// it clears only if nothing else was copied through keyshelf meanwhile.
public final class Clipboard {
    /// Seconds before a copied value is cleared.
    public let clearAfter: Double
    private var clearAt: Date?
    private var copied: Secret?
    /// Writes raw bytes to the terminal; tests replace it to see the OSC 52 sequence.
    var writeTerminal: ([UInt8]) -> Void = { bytes in
        bytes.withUnsafeBytes { raw in _ = write(STDOUT_FILENO, raw.baseAddress, raw.count) }
    }
    private let tool: (copy: [String], paste: [String])?

    public init(clearAfter: Double, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.clearAfter = clearAfter
        tool = Clipboard.findTool(environment: environment)
    }

    private static func findTool(environment: [String: String]) -> (copy: [String], paste: [String])? {
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        func find(_ name: String) -> String? {
            path.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        if environment["WAYLAND_DISPLAY"] != nil, let copy = find("wl-copy"), let paste = find("wl-paste") {
            return ([copy], [paste, "--no-newline"])
        }
        if environment["DISPLAY"] != nil, let xclip = find("xclip") {
            return ([xclip, "-selection", "clipboard", "-in"], [xclip, "-selection", "clipboard", "-out"])
        }
        return nil
    }

    /// Puts `value` on the clipboard and starts the clear timer.
    public func copy(_ value: Secret, now: Date) {
        value.withUnsafeBytes { send(Array($0)) }
        copied = value.detached()
        clearAt = now.addingTimeInterval(clearAfter)
    }

    /// Clears the clipboard when the timer ran out; called from the key loop about once a second.
    public func tick(now: Date) {
        guard let clearAt, now >= clearAt else { return }
        clearNow()
    }

    /// Clears our value from the clipboard now (on lock and quit), unless something else replaced it.
    public func clearNow() {
        guard let copied else { return }
        if stillOurs(copied) { send([]) }
        self.copied = nil
        clearAt = nil
    }

    private func stillOurs(_ value: Secret) -> Bool {
        guard let tool, let current = run(tool.paste, input: nil) else { return true }
        return Secret(SecureBytes(copying: current)) == value
    }

    private func send(_ bytes: [UInt8]) {
        var sequence = Array("\u{1B}]52;c;".utf8)
        sequence += Array(Data(bytes).base64EncodedString().utf8)
        sequence.append(0x07)
        writeTerminal(sequence)
        if let tool { _ = run(tool.copy, input: bytes) }
    }

    private func run(_ command: [String], input: [UInt8]?) -> [UInt8]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        if let input { stdin.fileHandleForWriting.write(Data(input)) }
        try? stdin.fileHandleForWriting.close()
        // wl-copy forks a server that keeps stdout open; only paste output is read.
        let output = input == nil ? stdout.fileHandleForReading.readDataToEndOfFile() : Data()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? Array(output) : nil
    }
}
