/// The items of both vault files, as read or about to be saved.
public struct VaultContents: Sendable {
    /// `local.vault`: the device's keychain.
    public var local: [Item]
    /// `shared.vault`: shared web credentials; never holds `…ThisDeviceOnly` items.
    public var shared: [Item]

    public init(local: [Item] = [], shared: [Item] = []) {
        self.local = local
        self.shared = shared
    }

    /// The items of `store`. Changed in place (`_modify`): through a plain
    /// setter, `contents[store][i] = item` would copy the whole store first.
    public subscript(store: Store) -> [Item] {
        get {
            switch store {
            case .local: local
            case .shared: shared
            }
        }
        _modify {
            switch store {
            case .local: yield &local
            case .shared: yield &shared
            }
        }
    }
}
