import KeyshelfCrypto

/// The fixed 144-byte header of a vault file, format v1, v2 or v3 (docs/vault-format.md).
///
/// Layout (little-endian integers):
/// ```
///   0   8  magic 89 4B 53 56 0D 0A 1A 0A ("\x89KSV\r\n\x1A\n")
///   8   2  format version (1; 2 or 3, whose payload is length-prefixed segments)
///  10   1  store: 1 local, 2 shared
///  11   4  secretstream chunk size in plaintext bytes
///  15   1  KDF id: 1 = Argon2id v1.3
///  16   8  opslimit
///  24   8  memlimit in bytes
///  32  16  salt
///  48  24  key-wrap nonce
///  72  48  vault key sealed with XChaCha20-Poly1305, associated data bytes 0..<72
/// 120   8  payload length in bytes (v1: the secretstream after the header;
///          v2, v3: every segment, the appendices included)
/// 128  16  BLAKE2b-128 of bytes 0..<128 (damage check, not authentication)
/// ```
/// The payload's associated data is bytes 0..<15 (magic, version, store,
/// chunk size). `passwd` replaces the vault key too, so it re-seals the
/// payload under the new key (docs/vault-format.md).
struct VaultHeader: Equatable {
    static let magic: [UInt8] = [0x89, 0x4B, 0x53, 0x56, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The version this keyshelf writes: 3, whose appendices may replace records.
    static let formatVersion: UInt16 = 3
    /// Versions this keyshelf reads: 1 (no appendices), 2 (appendices add
    /// records) and 3 (appendices add or replace records, by id).
    static let readableVersions: ClosedRange<UInt16> = 1...3
    static let byteCount = 144
    static let kdfArgon2id13: UInt8 = 1
    static let vaultKeyByteCount = 32
    /// Default plaintext bytes per secretstream chunk (64 KiB).
    static let defaultChunkByteCount: UInt32 = 64 * 1024
    /// Largest chunk size a reader accepts (16 MiB), so a damaged header cannot ask for huge buffers.
    static let maximumChunkByteCount: UInt32 = 16 * 1024 * 1024

    static let payloadAssociatedDataRange = 0..<15
    static let keyWrapAssociatedDataRange = 0..<72
    static let wrappedKeyRange = 72..<120
    static let payloadByteCountOffset = 120
    static let checksumRange = 128..<144

    /// The file's format version; part of the payload's associated data, so
    /// a header rewritten around an unchanged payload keeps it.
    var version: UInt16 = formatVersion
    var store: Store
    var chunkByteCount: UInt32
    var limits: PasswordHashLimits
    var salt: [UInt8]
    var nonce: [UInt8]
    var wrappedKey: [UInt8]
    var payloadByteCount: UInt64

    /// True when both headers derive the same key from the same password.
    func sharesKeyDerivation(with other: VaultHeader) -> Bool {
        limits == other.limits && salt == other.salt
    }

    /// The 144 header bytes, checksum included.
    func serialized() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(Self.byteCount)
        out += Self.magic
        out.appendLittleEndian(version)
        out.append(store.headerByte)
        out.appendLittleEndian(chunkByteCount)
        out.append(Self.kdfArgon2id13)
        out.appendLittleEndian(limits.opslimit)
        out.appendLittleEndian(limits.memlimitBytes)
        out += salt
        out += nonce
        out += wrappedKey
        out.appendLittleEndian(payloadByteCount)
        out += out.withUnsafeBytes { GenericHash.hash($0, byteCount: 16) }
        precondition(out.count == Self.byteCount, "vault header layout")
        return out
    }

    /// Associated data for wrapping the vault key (bytes 0..<72).
    func keyWrapAssociatedData() -> [UInt8] {
        Array(serialized()[Self.keyWrapAssociatedDataRange])
    }

    /// Associated data for the payload (bytes 0..<15): magic, version, store, chunk size.
    func payloadAssociatedData() -> [UInt8] {
        Array(serialized()[Self.payloadAssociatedDataRange])
    }

    /// Parses and checks a header at the start of `file`, in the order that
    /// names the most precise cause: magic, version, length, checksum, store,
    /// KDF id, limits (ceilings enforced here, before any key derivation),
    /// chunk size, then the file length the header announces (exactly the
    /// file's size for v1; for v2 up to `trailingByteLimit` bytes may follow).
    /// No field is used before the fields it depends on passed their checks,
    /// and no arithmetic on a field can trap (issue 11: a chunk size of 0 divided by zero).
    /// - Parameters:
    ///   - fileByteCount: the file's size on disk, when `file` holds only its
    ///     first bytes (`FileSystem.read` skips the payload of a file whose
    ///     size disagrees with its header); nil when `file` is the whole file.
    ///   - store: the store the file's name says; nil accepts either.
    /// - Throws: `VaultError` `.notAVault`, `.unsupportedVersion`, `.truncated`,
    ///   `.damaged`, `.kdfLimitsTooHigh`.
    static func parse(_ file: UnsafeRawBufferPointer, fileByteCount: Int? = nil, expected store: Store?, path: String) throws -> VaultHeader {
        let prefix = min(file.count, magic.count)
        guard file.prefix(prefix).elementsEqual(magic.prefix(prefix)) else {
            throw VaultError(.notAVault, file: path, reason: "is not a keyshelf vault (unknown file signature)")
        }
        guard file.count >= 10 else {
            throw VaultError(.truncated, file: path, reason: "is truncated (\(file.count) bytes, the header alone needs \(byteCount)); \(VaultError.restoreAdvice)")
        }
        let version = file.loadLittleEndian(UInt16.self, at: 8)
        guard readableVersions.contains(version) else {
            throw VaultError(.unsupportedVersion, file: path, reason: "has vault format version \(version); this keyshelf reads versions \(readableVersions.lowerBound) to \(readableVersions.upperBound)")
        }
        guard file.count >= byteCount else {
            throw VaultError(.truncated, file: path, reason: "is truncated (\(file.count) bytes, the header alone needs \(byteCount)); \(VaultError.restoreAdvice)")
        }
        let sum = GenericHash.hash(UnsafeRawBufferPointer(rebasing: file[0..<checksumRange.lowerBound]), byteCount: 16)
        guard file[checksumRange].elementsEqual(sum) else {
            throw VaultError(.damaged, file: path, reason: "is damaged (header checksum mismatch); \(VaultError.restoreAdvice)")
        }
        guard let fileStore = Store(headerByte: file[10]), store == nil || fileStore == store else {
            throw VaultError(.damaged, file: path, reason: "holds another store than its name says (was a vault file renamed?)")
        }
        guard file[15] == kdfArgon2id13 else {
            throw VaultError(.unsupportedVersion, file: path, reason: "uses key derivation \(file[15]); this keyshelf knows Argon2id (1) only")
        }
        let limits = PasswordHashLimits(
            opslimit: file.loadLittleEndian(UInt64.self, at: 16),
            memlimitBytes: file.loadLittleEndian(UInt64.self, at: 24))
        try checkCeilings(limits, path: path)
        guard limits.opslimit >= PasswordHashLimits.minimum.opslimit,
              limits.memlimitBytes >= PasswordHashLimits.minimum.memlimitBytes else {
            throw VaultError(.damaged, file: path, reason: "asks for Argon2id limits below the minimum (\(limits))")
        }
        let chunk = file.loadLittleEndian(UInt32.self, at: 11)
        guard chunk > 0, chunk <= maximumChunkByteCount else {
            throw VaultError(.damaged, file: path, reason: "has an invalid payload chunk size (\(chunk) bytes)")
        }
        let payload = file.loadLittleEndian(UInt64.self, at: payloadByteCountOffset)
        let size = max(fileByteCount ?? file.count, file.count)
        let available = UInt64(size - byteCount)
        guard payload <= available else {
            // Not summed: a damaged length may push header + payload past UInt64.
            throw VaultError(.truncated, file: path, reason: "is truncated (\(size) bytes, its header announces a \(payload)-byte payload after its \(byteCount) bytes); \(VaultError.restoreAdvice)")
        }
        guard available - payload <= UInt64(trailingByteLimit(version: version, chunkByteCount: chunk)) else {
            throw VaultError(.damaged, file: path, reason: "has \(available - payload) unexpected bytes after its end")
        }
        return VaultHeader(
            version: version, store: fileStore, chunkByteCount: chunk, limits: limits,
            salt: Array(file[32..<48]), nonce: Array(file[48..<72]),
            wrappedKey: Array(file[wrappedKeyRange]), payloadByteCount: payload)
    }

    /// `parse` of a file read by `FileSystem.read` (its bytes and the size on disk).
    static func parse(_ file: (bytes: [UInt8], identity: FileIdentity), expected store: Store, path: String) throws -> VaultHeader {
        try file.bytes.withUnsafeBytes { try parse($0, fileByteCount: Int(file.identity.byteCount), expected: store, path: path) }
    }

    /// Bytes a file may hold after the payload its header announces: in v2,
    /// one appendix whose append was interrupted before its header update
    /// (docs/vault-format.md, "Appendices"); none in v1.
    static func trailingByteLimit(version: UInt16, chunkByteCount: UInt32) -> Int {
        version >= 2 ? VaultFile.largestAppendixByteCount(chunkByteCount: Int(chunkByteCount)) : 0
    }

    /// Whether a file of `fileByteCount` bytes starting with `first` (its
    /// header) passes every check of `parse`, its length against the
    /// header's included: only then is the rest worth reading.
    static func announcesSize(_ first: UnsafeRawBufferPointer, fileByteCount: Int) -> Bool {
        (try? parse(first, fileByteCount: fileByteCount, expected: nil, path: "")) != nil
    }

    /// Refuses limits above `VaultDirectory.maximumLimits` without running Argon2id.
    static func checkCeilings(_ limits: PasswordHashLimits, path: String) throws {
        let ceiling = VaultDirectory.maximumLimits
        guard limits.opslimit <= ceiling.opslimit, limits.memlimitBytes <= ceiling.memlimitBytes else {
            throw VaultError(.kdfLimitsTooHigh, file: path, reason: "asks for Argon2id limits (\(limits)) above the ceiling (\(ceiling)); refused without trying")
        }
    }
}

extension Store {
    var headerByte: UInt8 {
        switch self {
        case .local: 1
        case .shared: 2
        }
    }

    init?(headerByte: UInt8) {
        switch headerByte {
        case 1: self = .local
        case 2: self = .shared
        default: return nil
        }
    }

    /// The file name in the vault directory (DESIGN §6).
    var fileName: String { "\(rawValue).vault" }
}

extension Array where Element == UInt8 {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

extension UnsafeRawBufferPointer {
    func loadLittleEndian<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
