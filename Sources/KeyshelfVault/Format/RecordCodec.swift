import Foundation
import KeyshelfCrypto

/// The payload plaintext: items as tagged, length-prefixed records
/// (docs/vault-format.md, "Payload records").
///
/// ```
/// payload := varint(itemCount) record*
/// record  := varint(fieldsByteCount) field*
/// field   := u8 tag, varint(valueByteCount), value
/// ```
/// Varints are unsigned LEB128. Fields equal to their zero value (empty
/// string, 0, false, no password) are omitted. Readers skip unknown tags, so
/// later versions can add fields. Decoding reads straight from the single
/// decrypted buffer; each password is a `Secret` slice of it, not a copy.
enum RecordCodec {
    enum Tag: UInt8 {
        case id = 1, itemClass, account, service, server, `protocol`, port, path
        case securityDomain, authenticationType, label, comment, otpauth
        case creationDate, modificationDate, accessible, accessControl
        case synchronizable, password, isDeleted
        case passwordExpiryUTC, oauthRefreshToken, ignoredFindings
        case changeStamp, passwordHistory
        // Sign in with Apple (docs/sign-in-with-apple.md).
        case signInWithApple = 36, appleForwardingAddress, appleSignInDate, appleTeamID
    }

    /// Decoding failed: the payload authenticated but does not parse.
    struct DecodeError: Error {
        var reason: String
    }

    // MARK: Encoding

    /// Encodes `items` into a new secure buffer of exactly the needed size,
    /// and points each item's password and refresh token at their copies in
    /// that buffer, so the buffers they came from can be released.
    ///
    /// Items and their strings are read in place through a pointer: a save
    /// encodes every item, and copying each `Item` or `String` (a dozen
    /// reference counts per item) cost more than the encoding itself.
    /// - Parameter generation: when not 0, each item's `recordOrigin` becomes
    ///   its position in the list numbered so (`RecordOrigin.nextGeneration`).
    static func encode(_ items: inout [Item], generation: UInt64 = 0) -> SecureBytes {
        items.withUnsafeMutableBufferPointer { items in
            // Sizes come from the writer itself run in counting mode: there is
            // no separate sizing code that could disagree with the bytes written.
            var sizing = Writer.counting
            sizing.varint(UInt64(items.count))
            var recordSizes = [Int]()
            recordSizes.reserveCapacity(items.count)
            for i in items.indices {
                let size = recordByteCount(items.baseAddress! + i)
                recordSizes.append(size)
                sizing.varint(UInt64(size))
                sizing.offset += size
            }
            let total = sizing.offset
            let out = SecureBytes(byteCount: total)
            out.withUnsafeMutableBytes { buffer in
                var w = Writer(base: buffer.baseAddress!)
                w.varint(UInt64(items.count))
                for i in items.indices {
                    let item = items.baseAddress! + i
                    w.varint(UInt64(recordSizes[i]))
                    // Moved out rather than copied: a copy would retain and release the
                    // password's buffer (shared by every item) once more per item.
                    let password = item.pointee.password.take()
                    let token = item.pointee.oauthRefreshToken.take()
                    let ranges = write(item, password: password, token: token, to: &w)
                    if let range = ranges.password { item.pointee.password = Secret(storage: out, range: range) }
                    if let range = ranges.token { item.pointee.oauthRefreshToken = Secret(storage: out, range: range) }
                    writeSyncFields(item, to: &w, storage: out)
                    if generation != 0 { item.pointee.recordOrigin = RecordOrigin(generation: generation, position: i) }
                }
                precondition(w.offset == total, "payload size mismatch")
            }
            return out
        }
    }

    /// The byte count of one record's fields: `write` and `writeSyncFields`
    /// run with a counting writer. The secrets are moved out and back, not copied.
    private static func recordByteCount(_ item: UnsafeMutablePointer<Item>) -> Int {
        var w = Writer.counting
        let password = item.pointee.password.take()
        let token = item.pointee.oauthRefreshToken.take()
        _ = write(item, password: password, token: token, to: &w)
        item.pointee.password = consume password
        item.pointee.oauthRefreshToken = consume token
        writeSyncFields(item, to: &w, storage: nil)
        return w.offset
    }

    /// Writes one record's fields, the password and refresh token being
    /// `password` and `token` (taken out of `item`); returns where their bytes went.
    private static func write(
        _ item: UnsafeMutablePointer<Item>, password: borrowing Secret?, token: borrowing Secret?, to w: inout Writer
    ) -> (password: Range<Int>?, token: Range<Int>?) {
        var passwordRange: Range<Int>?, tokenRange: Range<Int>?
        w.field(.id, byteCount: 16)
        withUnsafeBytes(of: item.pointee.id.uuid) { w.bytes($0) }
        w.byteField(.itemClass, item.pointee.itemClass.rawValue)
        w.string(.account, &item.pointee.account)
        w.string(.service, &item.pointee.service)
        w.string(.server, &item.pointee.server)
        w.string(.protocol, &item.pointee.protocol)
        if item.pointee.port != 0 {
            let v = UInt64(truncatingIfNeeded: item.pointee.port)
            w.field(.port, byteCount: varintByteCount(v))
            w.varint(v)
        }
        w.string(.path, &item.pointee.path)
        w.string(.securityDomain, &item.pointee.securityDomain)
        w.string(.authenticationType, &item.pointee.authenticationType)
        w.string(.label, &item.pointee.label)
        w.string(.comment, &item.pointee.comment)
        w.string(.otpauth, &item.pointee.otpauth)
        w.date(.creationDate, item.pointee.creationDate)
        w.date(.modificationDate, item.pointee.modificationDate)
        w.byteField(.accessible, item.pointee.accessible.rawValue)
        w.byteField(.accessControl, item.pointee.accessControl.rawValue)
        if item.pointee.synchronizable { w.byteField(.synchronizable, 1) }
        password?.withUnsafeBytes { password in
            w.field(.password, byteCount: password.count)
            passwordRange = w.offset..<(w.offset + password.count)
            w.bytes(password)
        }
        if item.pointee.isDeleted { w.byteField(.isDeleted, 1) }
        if let expiry = item.pointee.passwordExpiryUTC {
            w.field(.passwordExpiryUTC, byteCount: varintByteCount(expiry))
            w.varint(expiry)
        }
        token?.withUnsafeBytes { token in
            w.field(.oauthRefreshToken, byteCount: token.count)
            tokenRange = w.offset..<(w.offset + token.count)
            w.bytes(token)
        }
        if !item.pointee.ignoredFindings.isEmpty { w.byteField(.ignoredFindings, item.pointee.ignoredFindings.rawValue) }
        if item.pointee.signInWithApple != nil {
            w.byteField(.signInWithApple, item.pointee.signInWithApple!.hidesEmail ? 1 : 0)
            w.string(.appleForwardingAddress, &item.pointee.signInWithApple!.forwardingAddress)
            w.date(.appleSignInDate, item.pointee.signInWithApple!.since)
        }
        w.string(.appleTeamID, &item.pointee.appleTeamID)
        return (passwordRange, tokenRange)
    }

    static func varintByteCount(_ value: UInt64) -> Int {
        var v = value, n = 1
        while v >= 0x80 { v >>= 7; n += 1 }
        return n
    }

    // MARK: Decoding

    /// Decodes every item of `plaintext`; passwords are slices of it.
    /// - Parameter generation: when not 0, each item's `recordOrigin` becomes
    ///   its position in the list numbered so (`RecordOrigin.nextGeneration`).
    /// - Throws: `DecodeError` when the bytes do not follow the grammar.
    static func decode(_ plaintext: SecureBytes, generation: UInt64 = 0) throws -> [Item] {
        try plaintext.withUnsafeBytes { buffer in
            var r = Reader(buffer: buffer)
            let count = try r.varint()
            // Every record takes at least one byte: a bound on the count that a damaged file cannot exceed.
            guard count <= UInt64(buffer.count) else { throw DecodeError(reason: "item count \(count) exceeds the payload") }
            // Each record is decoded in its slot of the array (see `decodeRecord`).
            let blank = Self.blank
            let items = try [Item](unsafeUninitializedCapacity: Int(count)) { slots, initialized in
                for index in 0..<Int(count) {
                    let size = try r.varint()
                    guard size <= UInt64(r.end - r.offset) else { throw DecodeError(reason: "record runs past the payload") }
                    // A reader bounded by the record, so a damaged field cannot run into the next record.
                    var record = Reader(buffer: buffer, offset: r.offset, end: r.offset + Int(size))
                    let slot = slots.baseAddress! + index
                    slot.initialize(to: blank)
                    initialized = index + 1
                    try decodeRecord(&record, into: slot, storage: plaintext)
                    if generation != 0 { slot.pointee.recordOrigin = RecordOrigin(generation: generation, position: index) }
                    r.offset = record.end
                }
            }
            guard r.offset == r.end else { throw DecodeError(reason: "bytes after the last record") }
            return items
        }
    }

    /// An item whose every field is its zero value, for `decodeRecord` to fill in.
    private static var blank: Item {
        Item(
            id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), itemClass: .internetPassword,
            account: "", protocol: "", authenticationType: "",
            creationDate: Date(timeIntervalSinceReferenceDate: 0), password: nil)
    }

    /// Decodes one record into `item`, which holds `blank`. Fields are set in
    /// place: building an `Item` from locals and moving it cost a copy of
    /// every item.
    private static func decodeRecord(_ r: inout Reader, into item: UnsafeMutablePointer<Item>, storage: SecureBytes) throws {
        let end = r.end
        var sawID = false, sawClass = false
        // The Apple fields may come in any order; they make an `AppleSignIn` only with tag 36.
        var appleFlags: UInt8?, forwardingAddress = "", appleSince = Date(timeIntervalSinceReferenceDate: 0)

        while r.offset < end {
            let rawTag = try r.byte()
            let length = try r.varint()
            guard length <= UInt64(end - r.offset) else { throw DecodeError(reason: "field \(rawTag) runs past its record") }
            let range = r.offset..<(r.offset + Int(length))
            r.offset = range.upperBound
            guard let tag = Tag(rawValue: rawTag) else { continue }   // a newer field: skip
            switch tag {
            case .id:
                guard range.count == 16 else { throw DecodeError(reason: "id is not 16 bytes") }
                var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: r.buffer[range])) }
                item.pointee.id = UUID(uuid: raw)
                sawID = true
            case .itemClass:
                guard let v = ItemClass(rawValue: try r.single(range)) else { throw DecodeError(reason: "unknown item class") }
                item.pointee.itemClass = v
                sawClass = true
            case .account: item.pointee.account = try r.string(range)
            case .service: item.pointee.service = try r.string(range)
            case .server: item.pointee.server = try r.string(range)
            case .protocol: item.pointee.protocol = try r.string(range)
            case .port:
                var sub = Reader(buffer: r.buffer, offset: range.lowerBound, end: range.upperBound)
                item.pointee.port = Int(truncatingIfNeeded: try sub.varint())
            case .path: item.pointee.path = try r.string(range)
            case .securityDomain: item.pointee.securityDomain = try r.string(range)
            case .authenticationType: item.pointee.authenticationType = try r.string(range)
            case .label: item.pointee.label = try r.string(range)
            case .comment: item.pointee.comment = try r.string(range)
            case .otpauth: item.pointee.otpauth = try r.string(range)
            case .creationDate: item.pointee.creationDate = try r.date(range)
            case .modificationDate: item.pointee.modificationDate = try r.date(range)
            case .accessible:
                guard let v = Accessible(rawValue: try r.single(range)) else { throw DecodeError(reason: "unknown accessible value") }
                item.pointee.accessible = v
            case .accessControl:
                guard let v = AccessControl(rawValue: try r.single(range)) else { throw DecodeError(reason: "unknown access control value") }
                item.pointee.accessControl = v
            case .synchronizable: item.pointee.synchronizable = try r.single(range) != 0
            case .password: item.pointee.password = Secret(storage: storage, range: range)
            case .isDeleted: item.pointee.isDeleted = try r.single(range) != 0
            case .passwordExpiryUTC:
                var sub = Reader(buffer: r.buffer, offset: range.lowerBound, end: range.upperBound)
                item.pointee.passwordExpiryUTC = try sub.varint()
            case .oauthRefreshToken: item.pointee.oauthRefreshToken = Secret(storage: storage, range: range)
            case .ignoredFindings: item.pointee.ignoredFindings = AuditProblems(rawValue: try r.single(range))
            case .signInWithApple: appleFlags = try r.single(range)
            case .appleForwardingAddress: forwardingAddress = try r.string(range)
            case .appleSignInDate: appleSince = try r.date(range)
            case .appleTeamID: item.pointee.appleTeamID = try r.string(range)
            case .changeStamp: item.pointee.changeStamp = try r.changeStamp(range)
            case .passwordHistory: item.pointee.passwordHistory = try r.passwordHistory(range, storage: storage)
            }
        }
        if let appleFlags {
            item.pointee.signInWithApple = AppleSignIn(hidesEmail: appleFlags & 1 != 0, forwardingAddress: forwardingAddress, since: appleSince)
        }
        // The stamp read is the one issued for the date read; an unstamped record falls back to its date.
        item.pointee.changeStamp = item.pointee.changeStamp ?? ChangeStamp.fallback(for: item.pointee.modificationDate)
        item.pointee.changeStamp!.issuedFor = item.pointee.modificationDate
        guard r.offset == end else { throw DecodeError(reason: "record length mismatch") }
        guard sawID, sawClass else { throw DecodeError(reason: "record without id or class") }
    }
}
