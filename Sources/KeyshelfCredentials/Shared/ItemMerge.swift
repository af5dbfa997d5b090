import Foundation
import KeyshelfVault

/// Merges two copies of the shared items edited on two machines (DESIGN §6).
public enum ItemMerge {
    /// The union of `ours` and `theirs`, deterministic and without loss.
    ///
    /// - Items are matched by `id`; the later `modificationDate` wins; on a
    ///   tie a tombstone wins over a live item, otherwise `ours` is kept.
    ///   A tombstone therefore keeps an older live copy from coming back.
    /// - Two live items with one primary key but different ids (the same
    ///   account added on both machines) keep the later one; the other becomes
    ///   a tombstone dated like the winner, so merging again is stable.
    /// - A HOTP counter only grows: the winner keeps the larger counter of
    ///   the two copies when both hold the same HOTP secret (docs/otp.md).
    /// - `…ThisDeviceOnly` items are dropped: they never belong in the shared file.
    /// - Order: `ours` first, then items only `theirs` has.
    public static func merge(ours: [Item], theirs: [Item]) -> [Item] {
        var result: [Item] = []
        var position: [UUID: Int] = [:]
        for item in ours + theirs where !item.accessible.isThisDeviceOnly {
            if let i = position[item.id] {
                let other = result[i]
                let itemWins = newer(item, than: other)
                if itemWins { result[i] = item }
                if !result[i].isDeleted {
                    result[i].otpauth = OTPAuth.merged(winner: result[i].otpauth, other: itemWins ? other.otpauth : item.otpauth)
                }
            } else {
                position[item.id] = result.count
                result.append(item)
            }
        }
        var winner: [PrimaryKey: Int] = [:]
        for i in result.indices where !result[i].isDeleted {
            let key = result[i].primaryKey
            guard let j = winner[key] else { winner[key] = i; continue }
            let (keep, lose) = beats(result[i], result[j]) ? (i, j) : (j, i)
            winner[key] = keep
            result[lose].markDeleted(at: result[keep].modificationDate)
        }
        return result
    }

    private static func newer(_ a: Item, than b: Item) -> Bool {
        if a.modificationDate != b.modificationDate { return a.modificationDate > b.modificationDate }
        return a.isDeleted && !b.isDeleted
    }

    /// Total order between two live duplicates: later date, then smaller id.
    private static func beats(_ a: Item, _ b: Item) -> Bool {
        if a.modificationDate != b.modificationDate { return a.modificationDate > b.modificationDate }
        return a.id.uuidString < b.id.uuidString
    }
}
