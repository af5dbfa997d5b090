/// Where each role's column sits in one file's header, and which columns keyshelf ignores.
public struct ColumnMap: Sendable, Equatable {
    /// The format the header was read as.
    public let format: ImportFormat
    /// Header columns keyshelf does not use, in file order, as spelled in the file.
    public let ignoredColumns: [String]
    let indices: [ImportFormat.Role: Int]

    /// Maps `header` for `format`, matching names case-insensitively (a
    /// localised `Label(key)` by its key); the first of duplicate names wins.
    /// - Throws: `TransferError.missingColumns` when a required column is absent.
    public init(header: [String], format: ImportFormat, path: String) throws {
        let lowered = header.map(ImportFormat.columnKey)
        let missing = format.requiredColumns.filter { !lowered.contains($0) }
        guard missing.isEmpty else {
            throw TransferError.missingColumns(path: path, format: format, columns: missing)
        }
        var indices: [ImportFormat.Role: Int] = [:]
        var ignored: [String] = []
        for (index, name) in lowered.enumerated() {
            if let role = format.columns.first(where: { $0.name == name })?.role, indices[role] == nil {
                indices[role] = index
            } else {
                ignored.append(header[index])
            }
        }
        self.format = format
        self.indices = indices
        self.ignoredColumns = ignored
    }

    /// The column index holding `role`, or nil when the file has no such column.
    public func index(of role: ImportFormat.Role) -> Int? {
        indices[role]
    }
}
