import Foundation
import KeyshelfCrypto
import KeyshelfVault

/// Merges two copies of the shared items edited on two machines (DESIGN §6,
/// docs/sync.md). A pure function of its inputs and symmetric in them (up to
/// the order of the result), so that every machine merging the same copies
/// keeps the same records — `keyshelf sync` and git's merge driver (where a
/// rebase swaps ours and theirs) alike.
public enum ItemMerge {
    /// The union of `ours` and `theirs`, record by record, without loss.
    ///
    /// - Records are matched by `id`; the copy with the later change stamp
    ///   (`Item.effectiveStamp`, a hybrid logical clock) wins whole. On an
    ///   equal stamp a tombstone wins, then a fixed order of the contents.
    ///   So an edit later than a delete brings the record back, and a delete
    ///   later than an edit removes it.
    /// - The losing copy's password, when it differs, goes to the winner's
    ///   password history (with both copies' histories: `PasswordHistory`).
    /// - Two live records with one primary key but different ids (the same
    ///   account added on two machines) keep the one with the later stamp;
    ///   every other becomes a tombstone stamped like the winner, its password
    ///   moved to the winner's history, so merging again is stable.
    /// - A HOTP counter only grows: the winner keeps the larger counter of the
    ///   two copies when both hold the same HOTP secret (docs/otp.md).
    /// - `…ThisDeviceOnly` items are dropped: they never belong in the shared file.
    /// - Order: `ours` first, then records only `theirs` has.
    public static func merge(ours: [Item], theirs: [Item]) -> [Item] {
        // Sized up front: at 100k records, growing the tables step by step
        // (rehashing every key) was a fifth of a sync's own time.
        var result: [Item] = []
        result.reserveCapacity(max(ours.count, theirs.count))
        var position: [UUID: Int] = [:]
        position.reserveCapacity(ours.count + theirs.count)
        for side in [ours, theirs] {
            for item in side where !item.accessible.isThisDeviceOnly {
                if let i = position[item.id] {
                    result[i] = combine(result[i], item)
                } else {
                    position[item.id] = result.count
                    result.append(item)
                }
            }
        }
        // The first live record of each primary key; a list only for keys held by several.
        var first: [PrimaryKey: Int] = [:]
        first.reserveCapacity(result.count)
        var groups: [PrimaryKey: [Int]] = [:]
        for i in result.indices where !result[i].isDeleted {
            let key = result[i].primaryKey
            if let earlier = first[key] {
                groups[key, default: [earlier]].append(i)
            } else {
                first[key] = i
            }
        }
        for (_, members) in groups {
            let keep = members.max { beats(result[$1], result[$0]) }!
            for lose in members where lose != keep {
                let loser = result[lose]
                absorb(loser, into: &result[keep])
                var stamp = result[keep].effectiveStamp
                let date = result[keep].modificationDate
                stamp.issuedFor = date
                result[lose].markDeleted(at: date)
                result[lose].passwordHistory = []
                result[lose].changeStamp = stamp
            }
        }
        return result
    }

    /// One record from two copies of it (same id).
    static func combine(_ a: Item, _ b: Item) -> Item {
        // The common case (a record neither side changed): no ordering, no history work.
        if a.effectiveStamp.ties(b.effectiveStamp) && a == b { return a }
        let (winner, loser) = beats(a, b) ? (a, b) : (b, a)
        var result = winner
        guard !result.isDeleted else { return result }
        result.otpauth = OTPAuth.merged(winner: winner.otpauth, other: loser.otpauth)
        absorb(loser, into: &result)
        return result
    }

    /// Moves `loser`'s password and history into `winner`'s history.
    private static func absorb(_ loser: Item, into winner: inout Item) {
        winner.absorbHistory(of: loser, changed: winner.effectiveStamp.wallDate)
    }

    /// A total order between two copies: the later stamp; on a tie a
    /// tombstone; then a digest of the contents (two different contents
    /// under one stamp only arise from merges, which are deterministic).
    static func beats(_ a: Item, _ b: Item) -> Bool {
        let sa = a.effectiveStamp, sb = b.effectiveStamp
        if !sa.ties(sb) { return sb.precedes(sa) }
        if a.isDeleted != b.isDeleted { return a.isDeleted }
        let da = digest(a), db = digest(b)
        if da != db { return db.lexicographicallyPrecedes(da) }
        return b.id.uuidString < a.id.uuidString
    }

    /// BLAKE2b over the contents, built in sodium memory (it holds the password).
    private static func digest(_ item: Item) -> [UInt8] {
        let texts = [item.account, item.service, item.server, item.protocol, item.path, item.securityDomain,
                     item.authenticationType, item.label, item.comment, item.otpauth].map { Array($0.utf8) + [0] }
        let total = texts.reduce(item.password?.byteCount ?? 0) { $0 + $1.count }
        let buffer = SecureBytes(byteCount: total)
        return buffer.withUnsafeMutableBytes { raw -> [UInt8] in
            var offset = 0
            for text in texts {
                for byte in text { raw[offset] = byte; offset += 1 }
            }
            item.password?.withUnsafeBytes { password in
                for byte in password { raw[offset] = byte; offset += 1 }
            }
            return GenericHash.hash(UnsafeRawBufferPointer(raw), byteCount: 16)
        }
    }
}
