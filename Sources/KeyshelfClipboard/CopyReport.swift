/// Where a copy went, and what to tell the user about it (DESIGN §7; issue 11: "Copied" only when a clipboard got it).
public struct CopyReport: Sendable, Equatable {
    /// The targets that took the value (checked by their helpers' exit status).
    public let reached: [ClipboardTarget]
    /// True when the value went to the terminal as OSC 52 instead, which nothing can read back or clear.
    public let sentToTerminal: Bool
    /// Seconds until it is cleared; nil when it will not be.
    public let clearAfter: Double?
    /// The targets found in the environment, reached or not.
    public let tried: [ClipboardTarget]

    /// True when the value reached a clipboard keyshelf can check.
    public var copied: Bool { !reached.isEmpty }

    /// The sentence for the user, e.g. "Copied the password of anna to the X clipboard (xclip); cleared in 45 s."
    /// - Parameter what: the value, e.g. "the password of anna".
    public func message(_ what: String) -> String {
        if copied {
            let places = reached.map(\.place).joined(separator: " and ")
            let seconds = clearAfter.map { $0 == $0.rounded() ? String(Int($0)) : String($0) } ?? "?"
            return "Copied \(what) to \(places); cleared in \(seconds) s unless replaced."
        }
        if sentToTerminal {
            return "Sent \(what) to the terminal's clipboard (OSC 52); keyshelf cannot read it back there, "
                + "so it will not clear it: copy something else over it when done."
        }
        let failed = tried.isEmpty ? "" : " (\(tried.map(\.place).joined(separator: ", ")) failed)"
        return "Not copied: no clipboard took \(what)\(failed); keyshelf needs DISPLAY and xclip, "
            + "WAYLAND_DISPLAY and wl-copy, or tmux."
    }

    /// The sentence once the delay has passed and the value was cleared, e.g.
    /// "Cleared the password of anna from the X clipboard (xclip) where nothing replaced it."
    /// - Parameter what: the value, as for `message`.
    public func clearedMessage(_ what: String) -> String {
        "Cleared \(what) from \(reached.map(\.place).joined(separator: " and ")) where nothing replaced it."
    }
}
