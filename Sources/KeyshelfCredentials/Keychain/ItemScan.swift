import KeyshelfVault

extension Array where Element == Item {
    /// The index of the first item satisfying `predicate`, which reads the
    /// item in place through a pointer: `firstIndex(where:)`, `for item in
    /// items` and even `items[i]` handed to a function copy each `Item` (a
    /// dozen retains and releases), which dominates a scan of a 10 000-item store.
    func firstIndex(inPlace predicate: (UnsafePointer<Item>) -> Bool) -> Int? {
        withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            return buffer.indices.first { predicate(base + $0) }
        }
    }

    /// The indices of every item satisfying `predicate`, ascending; read in place like `firstIndex(inPlace:)`.
    func indices(inPlace predicate: (UnsafePointer<Item>) -> Bool) -> [Int] {
        withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return [] }
            return buffer.indices.filter { predicate(base + $0) }
        }
    }
}
