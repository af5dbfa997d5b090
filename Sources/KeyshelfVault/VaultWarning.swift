/// Something a save that succeeded could not do (docs/vault-format.md,
/// "Saving"): the change is on disk, but e.g. the directory could not be
/// synced or the backups could not be rotated. Reported, never thrown: a
/// save that committed does not report failure (issue 11, item 22).
public struct VaultWarning: Equatable, CustomStringConvertible, Sendable {
    /// The path of the file or directory concerned.
    public var file: String
    /// A sentence the user can act on. Never contains a secret.
    public var reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    public var description: String { "\(file): \(reason)" }
}
