import Foundation
import KeyshelfCrypto

/// Copies a value to the clipboards it can find and clears it after a delay,
/// only where the value is still there (docs/tui.md, Clipboard).
///
/// - Targets (`ClipboardTarget`): the Wayland or X clipboard and, inside
///   tmux, tmux's paste buffers, each written through its helper with the
///   value on standard input and read back to check it arrived.
/// - With no target and outside tmux, the value is sent to the terminal as
///   OSC 52 instead; nothing can read that clipboard back, so it is not cleared
///   (and the report says so) rather than overwritten blindly.
/// - Clearing compares what the target holds now with a keyed fingerprint of
///   what was copied and leaves anything else alone. A detached clearer
///   (`ClipboardClearer`) does it after `clearAfter` seconds even when this
///   process is gone; `tick` and `clearNow` do it in-process while it runs.
public final class Clipboard {
    /// Default seconds before a copied value is cleared (as `pass -c`).
    public static let defaultClearSeconds = 45.0
    /// The environment variable that overrides the delay in seconds (for tests and impatient users).
    public static let clearSecondsVariable = "KEYSHELF_CLIPBOARD_CLEAR"

    /// Seconds before a copied value is cleared.
    public let clearAfter: Double
    /// Writes raw bytes to the terminal for OSC 52; nil when there is no terminal. Tests replace it.
    public var writeTerminal: (([UInt8]) -> Void)?
    private let environment: [String: String]
    private let clearerExecutable: String?
    private var pending: [(fingerprint: ClipboardFingerprint, targets: [ClipboardTarget], clearAt: Date)] = []
    private var clearers: [pid_t] = []

    /// - Parameters:
    ///   - clearAfter: seconds before clearing (see `clearSeconds`).
    ///   - environment: where the displays, tmux and `PATH` are read from.
    ///   - clearerExecutable: the `keyshelf` binary run as the detached clearer
    ///     (`OwnExecutable.path`); nil clears only in-process.
    ///   - writeTerminal: where OSC 52 goes; nil for none.
    public init(clearAfter: Double, environment: [String: String] = ProcessInfo.processInfo.environment,
                clearerExecutable: String? = nil, writeTerminal: (([UInt8]) -> Void)? = nil) {
        self.clearAfter = clearAfter
        self.environment = environment
        self.clearerExecutable = clearerExecutable
        self.writeTerminal = writeTerminal
    }

    /// The delay in seconds: `$KEYSHELF_CLIPBOARD_CLEAR` when it is a number ≥ 0, else `configured`.
    public static func clearSeconds(environment: [String: String], configured: Double = defaultClearSeconds) -> Double {
        if let text = environment[clearSecondsVariable], let seconds = Double(text), seconds >= 0, seconds.isFinite { return seconds }
        return configured
    }

    /// Writes to standard output, for a program that owns the terminal (the TUI).
    public static func standardOutputWriter(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in _ = write(STDOUT_FILENO, raw.baseAddress, raw.count) }
    }

    /// Puts `value` on every clipboard target found and arms the clear.
    /// - Returns: where it went, for the user's message.
    @discardableResult
    public func copy(_ value: Secret, now: Date) -> CopyReport {
        let found = ClipboardTarget.available(environment: environment)
        let reached = found.filter { $0.1.write(value, to: $0.0) }.map(\.0)
        guard !reached.isEmpty else {
            let inTmux = !(environment["TMUX"] ?? "").isEmpty
            guard !inTmux, let writeTerminal else { return CopyReport(reached: [], sentToTerminal: false, clearAfter: nil, tried: found.map(\.0)) }
            sendOSC52(value, writeTerminal)
            return CopyReport(reached: [], sentToTerminal: true, clearAfter: nil, tried: found.map(\.0))
        }
        let fingerprint = ClipboardFingerprint(of: value)
        pending.append((fingerprint, reached, now.addingTimeInterval(clearAfter)))
        if let clearerExecutable, let pid = ClipboardClearer.start(
            fingerprint, targets: reached, after: clearAfter, environment: environment, executable: clearerExecutable) {
            clearers.append(pid)
        }
        return CopyReport(reached: reached, sentToTerminal: false, clearAfter: clearAfter, tried: found.map(\.0))
    }

    /// Whether a value copied by this process still waits for its clear (`tick`).
    public var isWaitingToClear: Bool { !pending.isEmpty }

    /// Clears what is due; called from the key loop about once a second.
    public func tick(now: Date) {
        reapClearers(waiting: false)
        let due = pending.filter { now >= $0.clearAt }
        pending.removeAll { now >= $0.clearAt }
        clear(due)
    }

    /// Clears every value copied and not cleared yet, now (on lock and quit),
    /// where it is still there; the detached clearers are no longer needed then.
    public func clearNow() {
        clear(pending)
        pending = []
        for pid in clearers { kill(pid, SIGTERM) }
        reapClearers(waiting: true)
    }

    private func clear(_ entries: [(fingerprint: ClipboardFingerprint, targets: [ClipboardTarget], clearAt: Date)]) {
        guard !entries.isEmpty else { return }
        let helpers = ClipboardHelpers(environment: environment)
        for entry in entries {
            for target in entry.targets { _ = helpers.clear(entry.fingerprint, from: target) }
        }
    }

    private func reapClearers(waiting: Bool) {
        clearers.removeAll { pid in
            var status: Int32 = 0
            return waitpid(pid, &status, waiting ? 0 : WNOHANG) != 0
        }
    }

    private func sendOSC52(_ value: Secret, _ writeTerminal: ([UInt8]) -> Void) {
        var sequence = Array("\u{1B}]52;c;".utf8) + value.withUnsafeBytes { Clipboard.base64($0) }
        sequence.append(0x07)
        writeTerminal(sequence)
        // Plain arrays cannot be locked, but they need not outlive the write.
        sequence.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }

    /// Standard base64 (RFC 4648) into bytes, so the secret never becomes a `String`.
    static func base64(_ input: UnsafeRawBufferPointer) -> [UInt8] {
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
}
