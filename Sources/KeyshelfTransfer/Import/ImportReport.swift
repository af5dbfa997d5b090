import KeyshelfCredentials
import KeyshelfVault

/// What an import did (or, for a dry run, would do) (issue 5, "Report").
public struct ImportReport: Sendable {
    /// The file, its format and ignored columns.
    public let source: ImportSource
    /// The store written.
    public let store: Store
    /// True when nothing was written (`--dry-run`).
    public let dryRun: Bool
    /// Rows stored as new items.
    public let imported: [ReportedRow]
    /// Rows whose password replaced a saved one (after consent).
    public let updated: [ReportedRow]
    /// Rows not imported on purpose, each with its reason.
    public let skipped: [ReportedRow]
    /// Rows that could not be imported, each with its reason.
    public let failed: [ReportedRow]

    /// "imported 3, updated 1, skipped 2, failed 1" (dry run: "would import …").
    public var summary: String {
        let verb = dryRun ? "would import" : "imported"
        let update = dryRun ? "would update" : "updated"
        return "\(verb) \(imported.count), \(update) \(updated.count), skipped \(skipped.count), failed \(failed.count)"
    }

    /// Rows listed per kind (title and reason, e.g. "skipped … empty row")
    /// before the rest of that kind is counted in one line.
    public static let listedPerKind = 5

    /// The reason of a row identical to a saved item, listed last.
    static let alreadySaved = "already saved"

    /// The whole report as lines for a terminal: format, ignored columns,
    /// summary, then the failed, updated and skipped rows with position and
    /// reason, notes, and last the rows skipped as "already saved". Of each kind the first `listedPerKind` rows are listed and the
    /// rest summarised ("and 99995 more rows skipped: empty row"), so the
    /// report stays short however many rows a file repeats.
    /// Values from the file are shown inert (`InertText`: control, bidi and
    /// invisible characters escaped).
    public var lines: [String] {
        var out = ["\(InertText.make(Self.clip(source.path))): \(source.format.displayName) export, \(source.rowCount) row(s), into the \(store.rawValue) store"]
        if !source.ignoredColumns.isEmpty {
            out.append("ignored columns: \(source.ignoredColumns.map { InertText.make(Self.clip($0)) }.joined(separator: ", "))")
        }
        out.append(summary + (dryRun ? " (dry run: nothing written)" : ""))
        // Issue 17: the useful lines first (failures, then updates and other
        // skips), the long "already saved" tail of a re-import last.
        let alreadySaved = skipped.filter { $0.reason == Self.alreadySaved }
        let otherSkips = skipped.filter { $0.reason != Self.alreadySaved }
        for (title, rows) in [("failed", failed), ("updated", dryRun ? [] : updated), ("would update", dryRun ? updated : []),
                              ("skipped", otherSkips), ("note", source.notes), ("skipped", alreadySaved)] where !rows.isEmpty {
            var counts: [String: Int] = [:]
            var kinds: [String] = []
            for row in rows.sorted(by: { $0.position.row < $1.position.row }) {
                let count = counts[row.reason, default: 0] + 1
                counts[row.reason] = count
                if count == 1 { kinds.append(row.reason) }
                if count <= Self.listedPerKind { out.append("  \(title) \(row.position): \(Self.describe(row))") }
            }
            for reason in kinds where counts[reason]! > Self.listedPerKind {
                let more = counts[reason]! - Self.listedPerKind
                out.append("  and \(more) more \(more == 1 ? "row" : "rows") \(title)\(reason.isEmpty ? "" : ": \(Self.clip(reason))")")
            }
        }
        return out
    }

    /// The most characters of one value from the file shown in a report line; longer ones end in "…".
    public static let maxValueCharacters = 200

    /// `text` cut to `maxValueCharacters` characters, so one huge field cannot make a huge report line.
    static func clip(_ text: String) -> String {
        guard let end = text.index(text.startIndex, offsetBy: maxValueCharacters, limitedBy: text.endIndex),
              end != text.endIndex else { return text }
        return text[..<end] + "…"
    }

    static func describe(_ row: ReportedRow) -> String {
        var parts = [row.account.isEmpty ? nil : InertText.quoted(clip(row.account)),
                     row.server.isEmpty ? nil : "on \(InertText.make(clip(row.server)))"].compactMap { $0 }
        if parts.isEmpty, !row.title.isEmpty { parts = [InertText.quoted(clip(row.title))] }
        let who = parts.joined(separator: " ")
        let reason = clip(row.reason)
        if reason.isEmpty { return who }
        return who.isEmpty ? reason : "\(who): \(reason)"
    }
}
