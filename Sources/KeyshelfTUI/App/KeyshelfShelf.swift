import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfTransfer
import KeyshelfVault

/// The `Shelf` over the domain layer's `Keyshelf` facade: every rule
/// (normalisation, consent, Keychain semantics, the login flow) is the facade's,
/// and every import rule is KeyshelfTransfer's (`Importer` on the facade's vault).
public final class KeyshelfShelf: Shelf {
    let keyshelf: Keyshelf
    private let vault: PromptCheckedVault
    private let onLock: () -> Void
    private var entries: [CredentialEntry] = []
    /// The generic passwords shown after the servers (issue 13 rule 4).
    private var generics: [GenericEntry] = []
    /// The audit's strength estimates across reloads: an edit re-estimates one account.
    private let strengths = StrengthCache()
    /// The findings of the last audit, shown while a background batch runs.
    private var lastFindings: [ShelfFinding] = []
    /// More missing estimates than this (a first open, an import) are made in
    /// the background rather than before the next frame (~90 µs each).
    static let inlineEstimates = 64

    /// - Parameters:
    ///   - vault: where the items live (an unlocked `VaultSession`, or a `MemoryVault`).
    ///   - onLock: wipes the keys (e.g. `VaultSession.lock`).
    /// - Throws: the vault's error when it cannot be read.
    public init(vault: any CredentialVault, onLock: @escaping () -> Void = {}) throws {
        self.vault = PromptCheckedVault(vault)
        keyshelf = try Keyshelf(vault: self.vault)
        self.onLock = onLock
    }

    public func records() throws -> [ShelfEntry] {
        let entries = keyshelf.entries()
        self.entries = entries
        var records: [ShelfEntry] = []
        records.reserveCapacity(entries.count)
        // The entries come in the order of the domains, each domain's accounts
        // together: one `Place` (title, display host, domain) per server, shared.
        entries.withUnsafeBufferPointer { entries in
            for domain in keyshelf.domains() {
                let place = ShelfEntry.Place(server: domain.server.displayHost, port: domain.server.reportedPort,
                                             serverWithPort: domain.server.qualified, domain: .server(domain.server))
                // Borrowed by index: binding each entry would copy all its strings.
                for i in records.count..<(records.count + domain.accountCount) {
                    records.append(ShelfEntry(id: entries[i].id, place: place, account: entries[i].account, store: entries[i].store,
                                              creationDate: entries[i].creationDate, modificationDate: entries[i].modificationDate,
                                              comment: entries[i].comment, label: entries[i].label,
                                              requiresUserPresence: entries[i].accessControl == .userPresence,
                                              signInWithApple: entries[i].signInWithApple))
                }
            }
        }
        generics = keyshelf.genericEntries()
        for entry in generics {
            records.append(ShelfEntry(id: entry.id, server: entry.service, domain: .service(entry.service), account: entry.account,
                                      store: entry.store, creationDate: entry.creationDate, modificationDate: entry.modificationDate,
                                      comment: entry.comment, label: entry.label, requiresUserPresence: entry.accessControl == .userPresence))
        }
        return records
    }

    public func search(_ query: String) -> [Int] {
        let credentials = entries.count, genericCount = generics.count
        // The facade's positions are `entries` and `generics` positions, which
        // `records()` keeps in that order: the generic passwords follow the credentials.
        var found = keyshelf.searchPositions(query).filter { $0 < credentials }
        found += keyshelf.searchGenericPositions(query).lazy.filter { $0 < genericCount }.map { credentials + $0 }
        return found
    }

    public func auditFindings() throws -> [ShelfFinding] {
        // While a batch runs, and before the first one, the main thread audits
        // nothing: at 100k accounts even the cached audit (subjects, reuse
        // digests) costs more than a frame. The batch's end reloads the findings.
        if strengths.isEstimating { return lastFindings }
        // The first open: even pairing the accounts with their passwords is
        // left to the batch (one subject per entry).
        if strengths.isEmpty && keyshelf.entries().count > Self.inlineEstimates {
            strengths.estimateInBackground(building: keyshelf.deferredAuditSubjects())
            return lastFindings
        }
        let subjects = keyshelf.auditSubjects()
        let missing = strengths.missing(subjects)
        let inBackground = missing.count > Self.inlineEstimates
        if inBackground { strengths.estimateInBackground(missing) }
        let engine = AuditEngine(strengths: strengths, cachedStrengthsOnly: inBackground)
        lastFindings = try engine.audit(subjects).findings.map { finding in
            ShelfFinding(id: finding.entry.id,
                         serverWithPort: finding.entry.server.qualified,
                         account: finding.entry.account, store: finding.entry.store,
                         problems: finding.problems.map { ($0.rawValue, finding.reasons[$0] ?? "") })
        }
        return lastFindings
    }

    func entry(_ record: ShelfEntry) throws -> CredentialEntry {
        guard let entry = entries.first(where: { $0.id == record.id }) else {
            throw KeychainError(.itemNotFound, "\"\(record.account)\" on \(record.serverWithPort) is gone")
        }
        return entry
    }

    /// Runs `body` with the facade asking through `prompts`; a declined dialog becomes `ConsentDeclined`.
    func asking<T>(_ prompts: UserPrompts, _ body: () throws -> T) throws -> T {
        let bridge = PromptBridge(prompts, verify: vault.verifyForPrompt)
        keyshelf.consent = bridge
        keyshelf.userPresence = bridge
        defer {
            keyshelf.consent = DeclineAll()
            keyshelf.userPresence = nil
            vault.forget()
        }
        do {
            return try body()
        } catch let error as KeychainError where error.status == .userCanceled {
            throw ConsentDeclined(error.reason)
        }
    }

    public func password(of record: ShelfEntry, for purpose: RevealPurpose, prompts: UserPrompts) throws -> Secret {
        if let generic = generics.first(where: { $0.id == record.id }) {
            return try asking(prompts) { try keyshelf.reveal(generic, for: purpose) }
        }
        let entry = try entry(record)
        return try asking(prompts) { try keyshelf.reveal(entry, for: purpose) }
    }

    public func add(server: String, account: String, password: Secret, store: Store, label: String, comment: String,
                    prompts: UserPrompts) throws -> ServerName {
        let name = try ServerName(parsing: server)
        // `add --label` of the CLI, narrowed to the store chosen in the form.
        let report = try asking(prompts) {
            try keyshelf.changePassword(password, server: ServerPattern(name), account: account, in: store == .local ? .local : .shared,
                                        newItems: store, label: label.isEmpty ? nil : label, comment: comment)
        }
        return report.server
    }

    public func update(_ record: ShelfEntry, account: String, password: Secret?, comment: String, prompts: UserPrompts) throws {
        if let generic = generics.first(where: { $0.id == record.id }) {
            guard account == generic.account else { throw KeychainError(.param, "a generic password's account cannot be renamed here") }
            return try asking(prompts) {
                let password = try password ?? keyshelf.reveal(generic, for: .show)
                _ = try keyshelf.addGeneric(service: generic.service, account: account, password: password,
                                            comment: comment == generic.comment ? nil : comment)
            }
        }
        let entry = try entry(record)
        try asking(prompts) {
            try keyshelf.update(entry, CredentialChanges(account: account == entry.account ? nil : account, password: password,
                                                         comment: comment == entry.comment ? nil : comment))
        }
    }

    public func editMetadata(_ record: ShelfEntry, account: String, label: String?, server: String?, store: Store?, prompts: UserPrompts) throws {
        guard label != nil || server != nil || store != nil else { return }
        if let generic = generics.first(where: { $0.id == record.id }) {
            return try asking(prompts) { try keyshelf.editGeneric(service: generic.service, account: account, MetadataChanges(label: label)) }
        }
        let entry = try entry(record)
        let changes = MetadataChanges(label: label, server: try server.map { try ServerName(parsing: $0) }, store: store)
        try asking(prompts) {
            _ = try keyshelf.edit(server: ServerPattern(entry.server), account: account, in: entry.store == .local ? .local : .shared, changes)
        }
    }

    public func delete(_ record: ShelfEntry, prompts: UserPrompts) throws {
        if let generic = generics.first(where: { $0.id == record.id }) {
            return try asking(prompts) { _ = try keyshelf.deleteGeneric(service: generic.service, account: generic.account) }
        }
        let entry = try entry(record)
        try asking(prompts) { try keyshelf.delete(entry) }
    }

    public func generatePassword(for server: String?) throws -> (password: Secret, summary: String) {
        let recipe = try keyshelf.passwordRecipe(for: server.flatMap { try? ServerName(parsing: $0) })
        return (try recipe.generate(), recipe.summary)
    }

    public func login(server name: ServerName, prompts: UserPrompts) throws -> ShelfEntry? {
        let result = try asking(prompts) { try keyshelf.login(server: name, prompt: PromptBridge(prompts, verify: vault.verifyForPrompt)) }
        _ = try records()
        guard let match = entries.first(where: {
            $0.account == result.record.account && $0.store == result.record.store && $0.server == result.record.server
        }) else { return nil }
        return try records().first { $0.id == match.id }
    }

    public func planImport(path: String, format: ImportFormat?, store: Store) throws -> ImportPlan {
        try Importer.plan(path: path, format: format, store: store, vault: keyshelf.vault)
    }

    public func commitImport(_ plan: ImportPlan, prompts: UserPrompts) throws -> ImportReport {
        let report = try Importer.commit(plan, vault: keyshelf.vault, consent: PromptBridge(prompts, verify: vault.verifyForPrompt))
        try keyshelf.reload()
        return report
    }

    public func refreshIfChanged() throws -> Bool {
        try keyshelf.refresh()
    }

    public var auditGeneration: Int { strengths.generation }

    public func lock() {
        strengths.clear()
        lastFindings = []
        onLock()
    }
}

/// Answers the facade's `Consent`, `UserPresencePrompt` and `LoginPrompt` with the TUI's dialogs.
///
/// `@unchecked Sendable`: `Consent` is `Sendable` for the CLI's sake; the TUI
/// runs on one thread and this object never leaves it.
final class PromptBridge: Consent, UserPresencePrompt, LoginPrompt, @unchecked Sendable {
    private weak var prompts: UserPrompts?
    private let verify: (Secret) -> Bool

    /// - Parameter verify: checks a typed master password, so the prompt can offer another try.
    init(_ prompts: UserPrompts, verify: @escaping (Secret) -> Bool) {
        self.prompts = prompts
        self.verify = verify
    }

    func ask(_ request: ConsentRequest) -> ConsentAnswer {
        guard let index = prompts?.ask(title: request.title, message: request.message, buttons: request.buttons,
                                       destructive: request.destructiveButtons) else {
            return .declined
        }
        return request.answer(forButton: index)
    }

    func askMasterPassword(reason: String) -> Secret? {
        prompts?.askMasterPassword(reason: reason, verify: verify)
    }

    func credential(for server: ServerName, account: String?, suggestion: Secret, failedAttempts: Int) -> PromptedCredential? {
        prompts?.askCredential(server: server.qualified, account: account, suggestion: suggestion, failedAttempts: failedAttempts)
            .map { PromptedCredential(account: $0.account, password: $0.password) }
    }
}
