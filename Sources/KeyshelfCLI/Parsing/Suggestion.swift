/// "did you mean 'import'?" for an unknown command or option.
enum Suggestion {
    /// The candidate closest to `word`: the only one `word` is a prefix of
    /// (at least 2 characters typed, `imp` → `import`), else the one at the
    /// smallest edit distance (insertions, deletions, substitutions, and
    /// swaps of two neighbours, so `improt` is 1 from `import`) when that
    /// distance is at most a third of the word's length (at least 1, at
    /// most 3); nil when nothing is that close or two candidates tie.
    static func nearest(to word: String, among candidates: [String]) -> String? {
        let typed = Array(word.lowercased())
        let prefixed = candidates.filter { $0.lowercased().hasPrefix(word.lowercased()) && $0.count > word.count }
        let bare = word.drop { $0 == "-" }.count
        if prefixed.count == 1, bare >= 2 { return prefixed[0] }
        let limit = min(3, max(1, typed.count / 3))
        var best: (name: String, distance: Int)?
        var tie = false
        for candidate in candidates {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            guard distance <= limit else { continue }
            if let current = best, current.distance == distance {
                tie = true
            } else if best == nil || distance < best!.distance {
                best = (candidate, distance)
                tie = false
            }
        }
        return tie ? nil : best?.name
    }

    /// The optimal-string-alignment distance between `a` and `b`.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, rows[i - 2][j - 2] + 1)
                }
                rows[i][j] = value
            }
        }
        return rows[a.count][b.count]
    }
}
