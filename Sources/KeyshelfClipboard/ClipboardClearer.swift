import CSystem
import Foundation
import KeyshelfCrypto

/// The detached clearer: `keyshelf __clipboard-clear SECONDS BYTES TARGET…`,
/// started by `Clipboard.copy` in a session of its own, so it outlives a
/// quit, SIGTERM, SIGHUP or SIGINT of the program that copied. It reads a
/// `ClipboardFingerprint` (key and digest, never the value) on standard
/// input, sleeps SECONDS, then clears each TARGET that still holds the value
/// (BYTES is the value's length), and exits.
public enum ClipboardClearer {
    /// The hidden subcommand word.
    public static let commandName = "__clipboard-clear"
    /// Environment variables the clearer keeps: what the helpers need to find the displays and tmux.
    static let keptEnvironment = ["PATH", "HOME", "DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "TMUX", "TMUX_PANE", "LANG"]

    /// Runs the clearer (the arguments after the command word).
    /// - Returns: 0 when it ran, 2 for arguments or input it cannot use.
    public static func run(arguments: [String], environment: [String: String]) -> Int32 {
        guard arguments.count >= 3, let seconds = Double(arguments[0]), seconds >= 0,
              let byteCount = Int(arguments[1]), byteCount >= 0 else { return 2 }
        let targets = arguments.dropFirst(2).compactMap(ClipboardTarget.init(rawValue:))
        let serialized = SecureBytes(byteCount: ClipboardFingerprint.byteCount)
        var count = 0
        serialized.withUnsafeMutableBytes { raw in
            while count < raw.count {
                let n = read(STDIN_FILENO, raw.baseAddress! + count, raw.count - count)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return }
                count += n
            }
        }
        guard count == serialized.byteCount,
              let fingerprint = ClipboardFingerprint(serialized: serialized, valueByteCount: byteCount) else { return 2 }
        Thread.sleep(forTimeInterval: seconds)
        let helpers = ClipboardHelpers(environment: environment)
        for target in targets { _ = helpers.clear(fingerprint, from: target) }
        return 0
    }

    /// Starts a clearer for `fingerprint` on `targets` after `seconds`.
    /// - Parameter executable: the `keyshelf` binary (`OwnExecutable.path`).
    /// - Returns: its pid, or nil when it could not be started.
    static func start(_ fingerprint: ClipboardFingerprint, targets: [ClipboardTarget], after seconds: Double,
                      environment: [String: String], executable: String) -> pid_t? {
        guard let pair = HelperProcess.socketPair() else { return nil }
        defer { close(pair[1]) }
        let arguments = [executable, commandName, String(seconds), String(fingerprint.valueByteCount)] + targets.map(\.rawValue)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = keptEnvironment.compactMap { key in
            environment[key].map { strdup("\(key)=\($0)") }
        } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = keyshelf_spawn_detached(executable, &argv, &envp, pair[0], -1, &pid)
        close(pair[0])
        guard rc == 0 else { return nil }
        // 64 bytes fit in any socket buffer: this send does not block.
        let sent = fingerprint.serialized().withUnsafeBytes { send(pair[1], $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == ClipboardFingerprint.byteCount else {
            kill(pid, SIGKILL)
            return nil
        }
        return pid
    }
}

/// This program's own binary (`/proc/self/exe`), which helpers such as the
/// agent and the clipboard clearer run as.
public enum OwnExecutable {
    public static var path: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
