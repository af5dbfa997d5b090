import Foundation
import KeyshelfCrypto

/// Copies text to the system clipboard and clears it after a delay unless it changed.
///
/// Always writes OSC 52 to the terminal (works over SSH and in tmux with
/// `set-clipboard on`, which keeps every copy in tmux's buffer list); also pipes to `wl-copy` (Wayland) or `xclip` (X11)
/// when one is on PATH and its display is set. Clearing checks with
/// `wl-paste`/`xclip -o` that our value is still there; with OSC 52 alone
/// it clears only if nothing else was copied through keyshelf meanwhile.
///
/// Clearing overwrites the clipboard with `clearValue` rather than sending an
/// empty OSC 52 payload: tmux ignores empty or invalid payloads, so an empty
/// "clear" would leave the password in its paste buffer. tmux still keeps
/// the password's own buffer in its history, which OSC 52 cannot delete
/// (docs/tui.md, Clipboard).
public final class Clipboard {
    /// What clearing puts on the clipboard: one space (base64 `IA==`), a payload every OSC 52 consumer accepts.
    static let clearValue: [UInt8] = [0x20]
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
        value.withUnsafeBytes { raw in
            var bytes = Array(raw)
            send(bytes)
            bytes.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
        }
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
        if stillOurs(copied) { send(Clipboard.clearValue) }
        self.copied = nil
        clearAt = nil
    }

    private func stillOurs(_ value: Secret) -> Bool {
        guard let tool, let current = run(tool.paste, input: nil) else { return true }
        return Secret(SecureBytes(copying: current)) == value
    }

    private func send(_ bytes: [UInt8]) {
        var sequence = Array("\u{1B}]52;c;".utf8) + Clipboard.base64(bytes)
        sequence.append(0x07)
        writeTerminal(sequence)
        if let tool { _ = run(tool.copy, input: bytes) }
        // Plain arrays cannot be locked, but they need not outlive the write.
        sequence.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }

    /// Standard base64 (RFC 4648) into bytes, so the secret never becomes a `String`.
    static func base64(_ input: [UInt8]) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var i = 0
        while i < input.count {
            let b0 = Int(input[i])
            let b1 = i + 1 < input.count ? Int(input[i + 1]) : 0
            let b2 = i + 2 < input.count ? Int(input[i + 2]) : 0
            out.append(alphabet[b0 >> 2])
            out.append(alphabet[((b0 & 0x03) << 4) | (b1 >> 4)])
            out.append(i + 1 < input.count ? alphabet[((b1 & 0x0F) << 2) | (b2 >> 6)] : UInt8(ascii: "="))
            out.append(i + 2 < input.count ? alphabet[b2 & 0x3F] : UInt8(ascii: "="))
            i += 3
        }
        return out
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
