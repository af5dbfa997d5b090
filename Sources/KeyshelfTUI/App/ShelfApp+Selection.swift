import Foundation
import KeyshelfCredentials
import KeyshelfVault

extension ShelfApp {
    /// The browser's selection by identity (domain, account, store, pane), kept
    /// across a lock so the unlocked browser shows the same place. No secret inside.
    public struct Selection: Equatable, Sendable {
        /// The selected domain (by value: scheme, host and port).
        public var domain: ShelfDomain
        /// The selected account of that domain, nil when the domain has none selected.
        public var account: String?
        public var store: Store?
        var pane: Pane
    }

    /// What is selected now; nil when the shelf is empty.
    public var selection: Selection? {
        guard let domain = selectedDomain else { return nil }
        let record = selectedRecord
        return Selection(domain: domain.id, account: record?.account, store: record?.store, pane: state.pane)
    }

    /// Selects `selection` again when its domain (and account) is still shown;
    /// keeps the current selection when it is gone. Clears any search first.
    public func restore(_ selection: Selection) {
        state.apply(.restore(selection))
    }
}
