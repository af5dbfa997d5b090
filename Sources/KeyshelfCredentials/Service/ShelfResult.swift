import KeyshelfCrypto
import KeyshelfVault

/// What a `ShelfOperation` gave.
public enum ShelfResult: Sendable, Equatable {
    /// `get`: the record, with its password.
    case record(CredentialRecord)
    /// `list`: records without passwords, in the facade's order.
    case records(CredentialRecords)
    /// `search`: the matching web logins (without passwords) and generic
    /// passwords, each in the facade's order.
    case found(records: CredentialRecords, generics: [GenericEntry])
    /// `change`: the outcome per store.
    case changed(PasswordChangeReport)
    /// `delete`: the server the account was deleted on and the stores it
    /// was deleted from (local first).
    case deleted(server: ServerName, stores: [Store])
    /// `deleteGeneric`: the store the generic password was deleted from.
    case deletedGeneric(store: Store)
    /// `edit`: the server the item is at afterwards (the new one when it
    /// moved) and the stores it is in afterwards (local first).
    case edited(server: ServerName, stores: [Store])
    /// `editGeneric`: done.
    case editedGeneric
    /// `lookup`: the server the login flow runs for and what steps 1–2
    /// found there (nil: nothing, or the release was declined).
    case lookedUp(server: ServerName, record: CredentialRecord?)
    /// `suggestPassword`: the generated password.
    case generated(Secret)
    /// `saveLogin`: the outcome per store.
    case saved(SaveResult)
    /// `export`: the items to export, local store first (`Keyshelf.exportableItems()`).
    case exported([Item])
    /// `planImport`: one class per login, in order.
    case planned([ImportClass])
    /// `importLogins`: the outcome of each addition, then of each update.
    case imported([ImportOutcome])
    /// `changeMasterPassword`: done; the vault's keys are new.
    case masterPasswordChanged

    /// The record of a `get`, else nil.
    public var record: CredentialRecord? {
        if case .record(let found) = self { found } else { nil }
    }

    /// The records of a `list`, else nil.
    public var records: CredentialRecords? {
        if case .records(let found) = self { found } else { nil }
    }

    /// The web logins and generic passwords of a `search`, else nil.
    public var found: (records: CredentialRecords, generics: [GenericEntry])? {
        if case let .found(records, generics) = self { (records, generics) } else { nil }
    }

    /// The report of a `change`, else nil.
    public var changeReport: PasswordChangeReport? {
        if case .changed(let report) = self { report } else { nil }
    }

    /// The server and stores of a `delete`, else nil.
    public var deletion: (server: ServerName, stores: [Store])? {
        if case let .deleted(server, stores) = self { (server, stores) } else { nil }
    }

    /// The store of a `deleteGeneric`, else nil.
    public var genericDeletion: Store? {
        if case .deletedGeneric(let store) = self { store } else { nil }
    }

    /// The server and stores of an `edit`, else nil.
    public var edit: (server: ServerName, stores: [Store])? {
        if case let .edited(server, stores) = self { (server, stores) } else { nil }
    }

    /// `()` after an `editGeneric`, else nil.
    public var editedGeneric: Void? {
        if case .editedGeneric = self { () } else { nil }
    }

    /// The server and the credential of a `lookup`, else nil.
    public var lookedUp: (server: ServerName, record: CredentialRecord?)? {
        if case let .lookedUp(server, record) = self { (server, record) } else { nil }
    }

    /// The password of a `suggestPassword`, else nil.
    public var generated: Secret? {
        if case .generated(let password) = self { password } else { nil }
    }

    /// The outcome of a `saveLogin`, else nil.
    public var saved: SaveResult? {
        if case .saved(let result) = self { result } else { nil }
    }

    /// The items of an `export`, else nil.
    public var exported: [Item]? {
        if case .exported(let items) = self { items } else { nil }
    }

    /// The classes of a `planImport`, else nil.
    public var planned: [ImportClass]? {
        if case .planned(let classes) = self { classes } else { nil }
    }

    /// The outcomes of an `importLogins`, else nil.
    public var imported: [ImportOutcome]? {
        if case .imported(let outcomes) = self { outcomes } else { nil }
    }

    /// `()` after a `changeMasterPassword`, else nil.
    public var changedMasterPassword: Void? {
        if case .masterPasswordChanged = self { () } else { nil }
    }
}
