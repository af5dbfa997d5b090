import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// What an import would do to one store, decided without writing anything
/// (issue 5, "Conflicts"): a pure function of the file and the saved items.
///
/// - No saved item for `(server, account)` → an **addition**, no prompt (DESIGN §3).
/// - A saved item with the same password → **skipped** ("already saved").
/// - A saved item with another password → an **update**, which needs consent.
/// - A later row with the same `(server, account)` as an earlier one is
///   skipped when the password is the same, and failed otherwise (the file
///   contradicts itself, so the first row is kept and the conflict named).
public struct ImportPlan: Sendable {
    /// The file, format and ignored columns the plan came from.
    public let source: ImportSource
    /// The store the rows go to.
    public let store: Store
    /// Rows to store as new items.
    public private(set) var additions: [ImportCandidate]
    /// Rows that replace the password of a saved item; consent decides.
    public private(set) var updates: [ImportCandidate]
    /// Rows not imported, with reasons.
    public private(set) var skipped: [ReportedRow]
    /// Rows that cannot be imported, with reasons.
    public private(set) var failed: [ReportedRow]

    /// Plans importing `source` into `store`, whose items (tombstones included) are `existing`.
    public init(source: ImportSource, existing: [Item], store: Store) {
        self.init(source: source, store: store) { ImportMerge.classify($0, existing: existing) }
    }

    /// Plans importing `source` into `store`: rows repeating an earlier
    /// row's server and account are settled here, and `classify` sorts the
    /// others against the saved items (`ImportMerge.classify` where the
    /// vault is open: here, or in the agent through the `planImport` operation).
    /// - Parameter classify: one `ImportClass` per login, in order.
    /// - Throws: what `classify` throws.
    public init(source: ImportSource, store: Store, classify: ([ImportLogin]) throws -> [ImportClass]) rethrows {
        self.source = source
        self.store = store
        additions = []
        updates = []
        skipped = source.skipped
        failed = source.failed
        var firstRow: [InternetItemKey: ImportCandidate] = [:]
        var unique: [ImportCandidate] = []
        for candidate in source.candidates {
            let key = candidate.login.key
            if let earlier = firstRow[key] {
                if earlier.password == candidate.password {
                    skipped.append(candidate.reported("duplicate of row \(earlier.position.row)"))
                } else {
                    failed.append(candidate.reported(
                        "same server and account as row \(earlier.position.row) with another password; row \(earlier.position.row) kept"))
                }
                continue
            }
            firstRow[key] = candidate
            unique.append(candidate)
        }
        let classes = try classify(unique.map(\.login))
        precondition(classes.count == unique.count, "one class per login")
        for (candidate, kind) in zip(unique, classes) {
            switch kind {
            case .new: additions.append(candidate)
            case .alreadySaved: skipped.append(candidate.reported(ImportReport.alreadySaved))
            case .update: updates.append(candidate)
            }
        }
    }

    /// Asks `consent` about each update (`ConsentRequest.update`, "Update
    /// Saved Password?"); declined ones move to `skipped` (DESIGN §5: a
    /// non-interactive run without `--yes` declines).
    public mutating func askConsent(_ consent: some Consent) {
        var approved: [ImportCandidate] = []
        for candidate in updates {
            if consent.ask(.update(server: candidate.server, account: candidate.account)) == .declined {
                skipped.append(candidate.reported("update declined; saved password kept"))
            } else {
                approved.append(candidate)
            }
        }
        updates = approved
    }

    /// The report of this plan as it stands, for `--dry-run` (nothing written).
    public var dryRunReport: ImportReport {
        ImportReport(source: source, store: store, dryRun: true,
                     imported: additions.map { $0.reported("") }, updated: updates.map { $0.reported("") },
                     skipped: skipped, failed: failed)
    }

    /// Applies the plan to `items` (the store's items, read again under the
    /// vault lock) and returns what was done. Call inside `VaultSession.modify`
    /// so the whole import is saved at once or not at all.
    ///
    /// Items saved since the plan was made are respected (`ImportMerge.apply`).
    /// - Parameter now: creation / modification date of the written items.
    public func apply(to items: inout [Item], now: Date = Date()) -> ImportReport {
        commit { additions, updates in ImportMerge.apply(additions: additions, updates: updates, store: store, to: &items, now: now) }
    }

    /// Commits the plan through `write` (`ImportMerge.apply` in one locked
    /// save: here, or in the agent through the `importLogins` operation)
    /// and reports what was done.
    /// - Parameter write: given the additions and the consented updates,
    ///   returns the outcome of each addition, then of each update.
    /// - Throws: what `write` throws.
    public func commit(_ write: ([ImportLogin], [ImportLogin]) throws -> [ImportOutcome]) rethrows -> ImportReport {
        let outcomes = try write(additions.map(\.login), updates.map(\.login))
        precondition(outcomes.count == additions.count + updates.count, "one outcome per login")
        var imported: [ReportedRow] = []
        var updated: [ReportedRow] = []
        var skipped = self.skipped
        for (candidate, outcome) in zip(additions + updates, outcomes) {
            switch outcome {
            case .imported: imported.append(candidate.reported(""))
            case .updated: updated.append(candidate.reported(""))
            case .alreadySaved: skipped.append(candidate.reported(ImportReport.alreadySaved))
            case .savedMeanwhile: skipped.append(candidate.reported("saved meanwhile with another password; not replaced"))
            }
        }
        return ImportReport(source: source, store: store, dryRun: false,
                            imported: imported, updated: updated, skipped: skipped, failed: failed)
    }
}

extension ImportCandidate {
    func reported(_ reason: String) -> ReportedRow {
        ReportedRow(position: position, server: server.display, account: account, reason: reason)
    }

    /// The row as the vault's side of an import sees it (`ImportMerge`).
    public var login: ImportLogin {
        ImportLogin(server: server, path: path, account: account, password: password, label: label, comment: comment,
                    otpauth: otpauth, creationDate: creationDate)
    }
}
