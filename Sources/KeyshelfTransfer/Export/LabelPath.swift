/// How a folder or group of another manager is kept in an item's `label`
/// (no attribute of its own, docs/import.md "Folders and groups"):
/// `FOLDER/TITLE`, the path form pass and keepassxc-cli show.
///
/// Import joins folder and title with "/"; export splits at the last "/".
/// A title that itself holds "/" is split too, which changes where another
/// manager files it but never what comes back: joining the parts gives the
/// label again, so a round trip keeps it exactly.
public struct LabelPath: Sendable, Equatable {
    /// The folder path ("Work/Dev"), or "" for none.
    public let folder: String
    /// The item's title.
    public let title: String

    /// Splits `label` at its last "/"; a label without one has no folder.
    public init(label: String) {
        if let slash = label.lastIndex(of: "/"), slash != label.startIndex {
            folder = String(label[..<slash])
            title = String(label[label.index(after: slash)...])
        } else {
            folder = ""
            title = label
        }
    }

    /// The label for `title` in `folder`: `folder/title`, or `title` when `folder` is empty.
    /// Leading and trailing "/" of the folder are dropped.
    public static func label(folder: String, title: String) -> String {
        let trimmed = folder.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        return trimmed.isEmpty ? title : "\(trimmed)/\(title)"
    }
}
