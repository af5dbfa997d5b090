/// Scans of a store that read each item in place (the vault's saves and the domain's lookups).
extension Array where Element == Item {
    /// The index of the first item satisfying `predicate`, which reads the
    /// item in place through a pointer: `firstIndex(where:)`, `for item in
    /// items` and even `items[i]` handed to a function copy each `Item` (a
    /// dozen retains and releases), which dominates a scan of a 10 000-item store.
    public func firstIndex(inPlace predicate: (UnsafePointer<Item>) -> Bool) -> Int? {
        withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            return buffer.indices.first { predicate(base + $0) }
        }
    }

    /// The indices of every item satisfying `predicate`, ascending; read in place like `firstIndex(inPlace:)`.
    public func indices(inPlace predicate: (UnsafePointer<Item>) -> Bool) -> [Int] {
        withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return [] }
            return buffer.indices.filter { predicate(base + $0) }
        }
    }

    /// Whether an item satisfies `predicate`; read in place like `firstIndex(inPlace:)`.
    public func contains(inPlace predicate: (UnsafePointer<Item>) -> Bool) -> Bool {
        firstIndex(inPlace: predicate) != nil
    }
}
