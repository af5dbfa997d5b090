import Foundation
import KeyshelfCrypto

/// A clipboard keyshelf can write, read back and clear, through a helper program.
///
/// Chosen from the environment: Wayland (`WAYLAND_DISPLAY` and `wl-copy`/`wl-paste`),
/// else X11 (`DISPLAY` and `xclip`, CLIPBOARD selection); and, inside tmux
/// (`TMUX` and `tmux`), tmux's paste buffers (`load-buffer -`, so
/// `prefix ]` pastes it whatever `set-clipboard` says). A terminal's own
/// clipboard (OSC 52 outside tmux) cannot be read back and is no target.
public enum ClipboardTarget: String, CaseIterable, Sendable {
    case wayland, x11, tmux

    /// For messages: where the value went.
    public var place: String {
        switch self {
        case .wayland: "the Wayland clipboard (wl-copy)"
        case .x11: "the X clipboard (xclip)"
        case .tmux: "tmux's paste buffer"
        }
    }

    /// The targets usable in `environment`, with their helpers' paths.
    static func available(environment: [String: String]) -> [(ClipboardTarget, ClipboardHelpers)] {
        let helpers = ClipboardHelpers(environment: environment)
        var found: [(ClipboardTarget, ClipboardHelpers)] = []
        if helpers.waylandCopy != nil, helpers.waylandPaste != nil { found.append((.wayland, helpers)) }
        else if helpers.xclip != nil { found.append((.x11, helpers)) }
        if helpers.tmux != nil { found.append((.tmux, helpers)) }
        return found
    }
}

/// The helper programs found on `PATH` for the displays the environment names, and how each target is driven.
struct ClipboardHelpers {
    let environment: [String: String]
    let waylandCopy: String?
    let waylandPaste: String?
    let xclip: String?
    let tmux: String?

    init(environment: [String: String]) {
        self.environment = environment
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        func find(_ name: String) -> String? {
            path.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        let wayland = !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        waylandCopy = wayland ? find("wl-copy") : nil
        waylandPaste = wayland ? find("wl-paste") : nil
        xclip = (environment["DISPLAY"] ?? "").isEmpty ? nil : find("xclip")
        tmux = (environment["TMUX"] ?? "").isEmpty ? nil : find("tmux")
    }

    private func helper(_ command: [String?]) -> HelperProcess? {
        let parts = command.compactMap { $0 }
        return parts.count == command.count ? HelperProcess(command: parts, environment: environment) : nil
    }

    /// Puts `value` on `target`; true when it reads back from there (so "Copied" is true when said).
    func write(_ value: Secret, to target: ClipboardTarget) -> Bool {
        let command: [String?] = switch target {
        case .wayland: [waylandCopy]
        case .x11: [xclip, "-selection", "clipboard", "-in"]
        case .tmux: [tmux, "load-buffer", "-"]
        }
        guard helper(command)?.run(input: value) == true else { return false }
        // xclip and wl-copy exit before their forked server has taken the selection.
        let fingerprint = ClipboardFingerprint(of: value)
        return target == .tmux || settle { holders(of: fingerprint, on: target)?.isEmpty == false }
    }

    /// Polls `condition` every 10 ms for at most `HelperProcess.timeoutSeconds`.
    private func settle(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(HelperProcess.timeoutSeconds)
        while !condition() {
            guard Date() < deadline else { return false }
            usleep(10_000)
        }
        return true
    }

    /// Whether `target` holds the fingerprinted value now; nil when it cannot be read.
    /// For tmux, every buffer holding it (by name); `[]` when none does.
    func holders(of fingerprint: ClipboardFingerprint, on target: ClipboardTarget) -> [String]? {
        switch target {
        case .wayland, .x11:
            let command: [String?] = target == .wayland ? [waylandPaste, "--no-newline"] : [xclip, "-selection", "clipboard", "-out"]
            guard let helper = helper(command) else { return nil }
            // An empty or foreign selection makes the helper fail: then nothing of ours is there.
            guard let current = helper.read() else { return [] }
            return fingerprint.matches(Secret(current)) ? [""] : []
        case .tmux:
            guard let list = helper([tmux, "list-buffers", "-F", "#{buffer_size} #{buffer_name}"])?.read() else { return nil }
            let lines = list.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.split(separator: "\n")
            return lines.compactMap { line -> String? in
                let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2, Int(parts[0]) == fingerprint.valueByteCount,
                      let content = helper([tmux, "show-buffer", "-b", parts[1]])?.read(),
                      fingerprint.matches(Secret(content)) else { return nil }
                return parts[1]
            }
        }
    }

    /// Removes the fingerprinted value from `target` where it is still there.
    /// - Returns: false when the target could not be read (then nothing is overwritten).
    func clear(_ fingerprint: ClipboardFingerprint, from target: ClipboardTarget) -> Bool {
        guard let holders = holders(of: fingerprint, on: target) else { return false }
        for name in holders {
            switch target {
            case .wayland: _ = helper([waylandCopy, "--clear"])?.run(input: nil)
            case .x11: _ = write(Secret(SecureBytes(byteCount: 0)), to: target)
            case .tmux: _ = helper([tmux, "delete-buffer", "-b", name])?.run(input: nil)
            }
        }
        return holders.isEmpty || settle { self.holders(of: fingerprint, on: target)?.isEmpty != false }
    }
}
