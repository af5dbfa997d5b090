import KeyshelfCredentials
import KeyshelfVault

/// Runs an import against an unlocked vault: read and plan, ask consent,
/// then write everything in one locked, atomic save (issue 5, "Safety").
///
/// Works on a `VaultSession` (CLI) or any `CredentialVault` (the TUI's
/// facade vault, `MemoryVault` in the demo). Typical use:
/// ```
/// let plan = try Importer.plan(path: file, format: nil, store: .shared, session: session)
/// print(plan.dryRunReport.lines)            // --dry-run stops here
/// let report = try Importer.commit(plan, session: session, consent: consent)
/// ```
/// A `Keyshelf` facade over the same vault should `reload()` afterwards.
public enum Importer {
    /// Reads `path` (never modifying it) and plans the import into `store`
    /// against the vault's current items. Writes nothing.
    /// - Parameter format: nil detects the format from the header line.
    /// - Throws: `TransferError` for a file that cannot be imported as a
    ///   whole; `VaultError` when the vault cannot be read.
    public static func plan(path: String, format: ImportFormat?, store: Store, session: VaultSession) throws -> ImportPlan {
        let source = try ImportSource.read(path: path, format: format)
        return ImportPlan(source: source, existing: try session.contents()[store], store: store)
    }

    /// As `plan(path:format:store:session:)`, over a `CredentialVault`.
    public static func plan(path: String, format: ImportFormat?, store: Store, vault: any CredentialVault) throws -> ImportPlan {
        let source = try ImportSource.read(path: path, format: format)
        return ImportPlan(source: source, existing: try vault.loadItems()[store], store: store)
    }

    /// Asks `consent` about each update (before the vault lock is taken, so
    /// a dialog never holds it), then applies the plan in one
    /// `VaultSession.modify`: every row is written, or none.
    /// - Throws: `VaultError` from `modify`; the vault is then unchanged.
    public static func commit(_ plan: ImportPlan, session: VaultSession, consent: some Consent) throws -> ImportReport {
        let approved = consented(plan, consent)
        return try session.modify { contents in approved.apply(to: &contents[approved.store]) }
    }

    /// As `commit(_:session:consent:)`, over a `CredentialVault` (`modifyItems`).
    public static func commit(_ plan: ImportPlan, vault: any CredentialVault, consent: some Consent) throws -> ImportReport {
        let approved = consented(plan, consent)
        return try vault.modifyItems { items in approved.apply(to: &items[approved.store]) }
    }

    private static func consented(_ plan: ImportPlan, _ consent: some Consent) -> ImportPlan {
        var plan = plan
        plan.askConsent(consent)
        return plan
    }
}
