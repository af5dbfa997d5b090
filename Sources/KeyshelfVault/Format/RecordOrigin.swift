import Synchronization

/// Which record of a session's record list an item still is, byte for byte:
/// the list's `generation` and the record's position. The codec sets it on
/// every item it decodes or encodes for a `VaultSession` file, and setting
/// any attribute of the item clears it (`Item`'s property observers), so a
/// save finds the records an edit changed without encoding the whole store
/// (`VaultSession.modify`). Not an attribute: never on the wire, and ignored
/// by `Item`'s equality, like `StampSlot`.
struct RecordOrigin: Sendable, Equatable {
    /// 0: no record (a new item, or one changed since it was read).
    private(set) var generation: UInt64
    private(set) var position: Int

    /// No record.
    static let none = RecordOrigin(generation: 0, position: 0)

    /// Record `position` of the list numbered `generation` (`nextGeneration`).
    init(generation: UInt64, position: Int) {
        self.generation = generation
        self.position = position
    }

    /// Whether this is record `position` of list `generation` (never for `none`).
    func isRecord(_ position: Int, of generation: UInt64) -> Bool {
        generation != 0 && self.generation == generation && self.position == position
    }

    /// Always equal: the origin is bookkeeping, not content.
    static func == (a: RecordOrigin, b: RecordOrigin) -> Bool { true }

    private static let generations = Atomic<UInt64>(0)

    /// A number no other record list of this process has, so that an item
    /// carried from one file or session to another never passes for one of
    /// its records.
    static func nextGeneration() -> UInt64 {
        generations.wrappingAdd(1, ordering: .relaxed).newValue
    }
}
