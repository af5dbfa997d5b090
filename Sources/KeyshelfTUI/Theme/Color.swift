/// A terminal colour as a theme names it: the terminal's default or an xterm index 0–255.
public enum Color: Equatable, Sendable {
    /// The terminal's own foreground or background (`use_default_colors`, -1 in curses).
    case terminalDefault
    /// An xterm colour index: 0–7 basic, 8–15 bright, 16–231 a 6×6×6 cube, 232–255 greys.
    case index(Int)

    /// The names a theme file may use for 0–15.
    public static let names: [String: Int] = [
        "black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7,
        "bright-black": 8, "gray": 8, "grey": 8, "bright-red": 9, "bright-green": 10, "bright-yellow": 11,
        "bright-blue": 12, "bright-magenta": 13, "bright-cyan": 14, "bright-white": 15,
    ]

    /// Parses `default`, a name of `names`, or a number 0–255; nil otherwise.
    public init?(parsing word: String) {
        let w = word.lowercased()
        if w == "default" {
            self = .terminalDefault
        } else if let n = Color.names[w] {
            self = .index(n)
        } else if let n = Int(w), (0...255).contains(n) {
            self = .index(n)
        } else {
            return nil
        }
    }

    /// This colour on a terminal with `available` colours (256, 16, 8).
    ///
    /// 256-colour indexes go to the nearest of the 16 basic colours by RGB
    /// distance; on 8 colours the bright half folds onto the basic half
    /// (grey, 8, onto white, 7).
    public func degraded(toColors available: Int) -> Color {
        guard case .index(let n) = self else { return self }
        if available >= 256 || n < available { return self }
        let sixteen = n < 16 ? n : Color.nearestBasic(n)
        if available >= 16 { return .index(sixteen) }
        // Bright black (grey) would become black, unreadable on a dark background: use white.
        return .index(sixteen == 8 ? 7 : sixteen % 8)
    }

    /// xterm's RGB value of index `n`.
    static func rgb(_ n: Int) -> (Int, Int, Int) {
        let basic: [(Int, Int, Int)] = [
            (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
            (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
        ]
        if n < 16 { return basic[n] }
        if n < 232 {
            let level = [0, 95, 135, 175, 215, 255]
            let i = n - 16
            return (level[i / 36], level[(i / 6) % 6], level[i % 6])
        }
        let g = 8 + (n - 232) * 10
        return (g, g, g)
    }

    static func nearestBasic(_ n: Int) -> Int {
        let (r, g, b) = rgb(n)
        var best = 0
        var bestDistance = Int.max
        for candidate in 0..<16 {
            let (cr, cg, cb) = rgb(candidate)
            let d = (r - cr) * (r - cr) + (g - cg) * (g - cg) + (b - cb) * (b - cb)
            if d < bestDistance {
                best = candidate
                bestDistance = d
            }
        }
        return best
    }
}
