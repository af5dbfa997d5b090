import Foundation

extension ShelfApp {
    /// Reloads the records when another process changed the vault (a CLI
    /// `add`, the agent, a sync), keeping the selection by identity; the
    /// check is one `stat` per vault file when nothing changed (issue 13 rule 7).
    /// - Returns: whether the records were reloaded.
    func pickUpOutsideChanges() -> Bool {
        do {
            guard try shelf.refreshIfChanged() else { return false }
        } catch {
            setStatus("\(error)", error: true)
            return true
        }
        reload()
        return true
    }
}
