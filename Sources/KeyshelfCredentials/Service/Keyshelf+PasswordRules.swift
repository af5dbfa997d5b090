import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// Per-domain `passwordrules` (issue 16 item 8): saved in the local store
/// (`SavedPasswordRules`) and honoured by every generator that works for a
/// domain: `add --generate`, the TUI generator and the login flow's suggestion.
extension Keyshelf {
    /// The saved rule that applies to `server` (its own, else a parent domain's); nil when none.
    public func passwordRule(for server: ServerName) -> SavedPasswordRules.Entry? {
        SavedPasswordRules.lookup(server, in: items.local)
    }

    /// Every saved rule, sorted by domain.
    public func passwordRules() -> [SavedPasswordRules.Entry] {
        SavedPasswordRules.all(in: items.local)
    }

    /// `keyshelf rules set`: checks `text` and saves it for `server`,
    /// replacing the rule saved for that domain before (no consent: a rule is
    /// no secret and the old text is shown by `rules get`).
    /// - Returns: the recipe the rule gives (for a confirmation line).
    /// - Throws: `PasswordRulesError` for text that is malformed or cannot be
    ///   satisfied (nothing is saved), the vault's errors.
    @discardableResult
    public func setPasswordRules(_ text: String, for server: ServerName) throws -> PasswordRecipe {
        let key = SavedPasswordRules.key(for: server)
        let rules = try PasswordRules(parsing: text)
        let recipe = try PasswordRecipe(rules: rules, domain: key)
        let now = Date()
        try vault.modifyItems { items in
            var local = LocalStore(items: items.local)
            try SavedPasswordRules.set(rules, key: key, in: &local, now: now)
            items.local = local.items
        }
        try reload()
        return recipe
    }

    /// `keyshelf rules rm`: removes the rule saved for exactly `server`'s key
    /// (a parent domain's rule stays).
    /// - Throws: `errSecItemNotFound` when that domain has none; the vault's errors.
    public func removePasswordRules(for server: ServerName) throws {
        let key = SavedPasswordRules.key(for: server)
        let now = Date()
        do {
            try vault.modifyItems { items in
                var local = LocalStore(items: items.local)
                try local.delete(SavedPasswordRules.query(key), now: now)
                items.local = local.items
            }
        } catch let error as KeychainError where error.status == .itemNotFound {
            throw KeychainError.notFound("no password rules are saved for \(key)")
        }
        try reload()
    }

    /// The recipe for a password for `server`: its saved rule, else the
    /// standard `xxx-xxx-xxx-xxx` (also for nil).
    /// - Throws: `PasswordRulesError` when the saved rule cannot be used (saved by
    ///   another version); the message says how to replace or remove it.
    public func passwordRecipe(for server: ServerName?) throws(PasswordRulesError) -> PasswordRecipe {
        guard let server, let entry = passwordRule(for: server) else { return .standard }
        do {
            return try PasswordRecipe(rules: try PasswordRules(parsing: entry.text), domain: entry.domain)
        } catch {
            throw PasswordRulesError(error.code, "the password rules saved for \(entry.domain) cannot be used: \(error.message); change them with `keyshelf rules set \(entry.domain) …` or remove them with `keyshelf rules rm \(entry.domain)`")
        }
    }

    /// A new password for `server`, honouring its saved rule (`passwordRecipe(for:)`).
    /// - Throws: `PasswordRulesError` as `passwordRecipe(for:)` and `PasswordRecipe.generate()`.
    public func generatePassword(for server: ServerName?) throws(PasswordRulesError) -> Secret {
        try passwordRecipe(for: server).generate()
    }
}
