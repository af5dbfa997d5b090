import Foundation
import KeyshelfClipboard

/// Settings read from `$XDG_CONFIG_HOME/keyshelf/config` (`key = value` lines, `#` comments).
///
/// Keys: `theme` (a name from themes/), `auto-lock` (seconds idle before the
/// vault locks; 0 turns it off; default 300), `clipboard-clear` (seconds
/// before a copied secret is cleared; default 45). Unknown keys are ignored
/// so older versions can read newer files.
public struct TUIConfiguration: Equatable, Sendable {
    public var theme: String?
    /// Idle time before auto-lock, in seconds; 0 means never.
    public var autoLockSeconds: Double = 300
    /// Delay before a copied value is cleared from the clipboard, in seconds.
    public var clipboardClearSeconds: Double = Clipboard.defaultClearSeconds

    public init() {}

    /// Parses the config file text; a bad value is reported in `problems` and the default kept.
    public static func parse(_ text: String) -> (TUIConfiguration, problems: [String]) {
        var config = TUIConfiguration()
        var problems: [String] = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "theme": config.theme = parts[1]
            case "auto-lock", "clipboard-clear":
                guard let seconds = Double(parts[1]), seconds >= 0, seconds.isFinite else {
                    problems.append("config line \(offset + 1): \(parts[0]) needs a number of seconds")
                    continue
                }
                if parts[0] == "auto-lock" { config.autoLockSeconds = seconds } else { config.clipboardClearSeconds = seconds }
            default: continue
            }
        }
        return (config, problems)
    }

    /// `$XDG_CONFIG_HOME/keyshelf`, else `~/.config/keyshelf`.
    public static func configDirectory(environment: [String: String]) -> URL {
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg).appendingPathComponent("keyshelf")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".config/keyshelf")
    }

    /// Reads the config file; a missing file gives the defaults.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) -> (TUIConfiguration, problems: [String]) {
        let file = configDirectory(environment: environment).appendingPathComponent("config")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return (TUIConfiguration(), []) }
        return parse(text)
    }
}
