import Foundation
import KeyshelfCrypto

/// Reading, saving and appending one vault file for `VaultSession`.
extension VaultSession {
    /// Checks, unwraps and decodes one file read from disk.
    /// - Parameters:
    ///   - password: used when no key of `reusing` fits the file's salt and limits.
    ///   - reusing: a state whose password key (and vault key, for the same
    ///     wrapped key) can be reused without running Argon2id again.
    static func openFile(
        _ file: (bytes: [UInt8], identity: FileIdentity), store: Store, password: Secret?, reusing known: FileState?, path: String
    ) throws -> FileState {
        let header = try VaultHeader.parse(file, expected: store, path: path)
        let passwordKey: SecureBytes
        let vaultKey: SecureBytes
        if let known, known.header.sharesKeyDerivation(with: header) {
            passwordKey = known.passwordKey
            if known.header.store == store, known.header.nonce == header.nonce, known.header.wrappedKey == header.wrappedKey {
                vaultKey = known.vaultKey
            } else {
                vaultKey = try VaultFile.unwrapKey(header: header, passwordKey: passwordKey, path: path)
            }
        } else if let password {
            passwordKey = try VaultFile.deriveKey(password: password, salt: header.salt, limits: header.limits, path: path)
            vaultKey = try VaultFile.unwrapKey(header: header, passwordKey: passwordKey, path: path)
        } else {
            throw VaultError(.changedOnDisk, file: path, reason: "was re-sealed with another master password or key parameters since it was opened; lock and unlock again")
        }
        let opened = try VaultFile.open(file.bytes, header: header, vaultKey: vaultKey, path: path)
        return FileState(header: header, passwordKey: passwordKey, vaultKey: vaultKey, identity: file.identity, opened: opened)
    }

    /// Seals `plaintext` (the encoding of `items`, with `generation`'s
    /// origins; 0 for items without, whose records the next save writes
    /// again) and replaces `store`'s file atomically, refusing when it
    /// changed since `file.identity`.
    /// - Returns: what the save could not do after its commit (`AtomicFile.Saved`).
    @discardableResult
    static func save(_ items: [Item], plaintext: SecureBytes, generation: UInt64 = 0, store: Store, file: inout FileState, directory: String,
                     rotateBackups: Bool = true) throws -> [VaultWarning] {
        let old = keptSegments(of: file, path: directory + "/" + store.fileName)
        let layout = SegmentLayout(plaintext, chunkByteCount: Int(file.header.chunkByteCount), reusing: old.segments, from: old.bytes)
        let header = try VaultFile.sealedHeader(for: layout, header: file.header, vaultKey: file.vaultKey, passwordKey: file.passwordKey)
        let vaultKey = file.vaultKey
        var payloadTag: [UInt8] = []
        // Sealed chunk by chunk straight into the temporary file: no second whole-file buffer.
        let saved = try AtomicFile.replace(
            directory: directory, name: store.fileName, header: header.serialized(),
            payloadByteCount: Int(header.payloadByteCount),
            writePayload: { write in payloadTag = try layout.seal(plaintext, header: header, vaultKey: vaultKey, output: write) },
            expected: file.identity, rotateBackups: rotateBackups)
        file.identity = saved.identity
        file.header = header
        file.adopt(items, plaintext: plaintext, generation: generation)
        file.needsReload = false
        file.payloadTag = payloadTag
        file.appendixCount = 0
        file.appendixByteCount = 0
        file.hasUnfinishedAppend = false
        return saved.warnings
    }

    /// The base segments of the v3 file on disk that `file` was read from,
    /// which a whole-file save keeps when their records did not change.
    /// Empty when there is none to keep: another format, another version on
    /// disk (the save then refuses it anyway), or a file that does not open.
    private static func keptSegments(of file: FileState, path: String) -> (segments: [SegmentLayout.OldSegment], bytes: [UInt8]) {
        guard file.header.version >= 3, let identity = file.identity,
              let read = try? FileSystem.read(path), read.identity == identity,
              let header = try? VaultHeader.parse(read, expected: file.header.store, path: path),
              header.nonce == file.header.nonce, header.wrappedKey == file.header.wrappedKey,
              let segments = try? VaultFile.baseSegments(read.bytes, header: header, vaultKey: file.vaultKey, path: path) else { return ([], []) }
        return (segments, read.bytes)
    }

    /// Most appendices a file gets before the next write replaces it whole
    /// (folding them into its base segments, keeping the untouched ones).
    /// Each edit of a synced file is an appendix, and each whole-file save
    /// makes git store the touched segments again, so the bound is high:
    /// reading 1 024 small appendices costs about as much as decoding 1 000
    /// more records.
    static let maximumAppendixCount = 1024

    /// Bytes a file's appendices may hold together (length prefixes
    /// included) when its base segments hold fewer: appendices may hold as
    /// many bytes as the base segments, or this many. Bulk edits (every
    /// record changed, an appendix of a near-whole store each) thus compact
    /// after a few edits, instead of growing the file to 1 024 copies of the
    /// store that every open decrypts.
    static let minimumAppendixByteBudget = 256 * 1024

    /// Whether a file with `header`, whose `appendixCount` appendices take
    /// `appendixByteCount` bytes, may take one more appendix of
    /// `recordsByteCount` bytes of records, or must be replaced whole: its
    /// format has appendices (v3 for one that `replacing` records), the
    /// records fit in one chunk, and the count and byte budget allow it.
    /// The one rule for the vault file's saves and the merge driver's copies.
    static func takesAppendix(recordsByteCount: Int, replacing: Bool, header: VaultHeader, appendixCount: Int, appendixByteCount: Int) -> Bool {
        let chunk = Int(header.chunkByteCount)
        guard header.version >= (replacing ? 3 : 2), recordsByteCount <= chunk, appendixCount < maximumAppendixCount else { return false }
        let byteCount = VaultFile.segmentPrefixByteCount + SecretStream.sealedByteCount(plaintextByteCount: recordsByteCount, chunkByteCount: chunk)
        let payloadByteCount = Int(header.payloadByteCount)
        return appendixByteCount + byteCount <= max(payloadByteCount - appendixByteCount, minimumAppendixByteBudget)
    }

    /// Writes `records` (a record list: items changed in place or added
    /// after the file's last) as an appendix of `store`'s file, when the file
    /// can take one: it exists in format v2 (additions only) or v3
    /// (`replacing`: some records replace earlier ones by id), has fewer than
    /// `maximumAppendixCount` appendices, which with this one stay within
    /// their byte budget (`takesAppendix`), the records fit in one chunk,
    /// and it has one hard link. Updates the file's identity and header; the
    /// caller adopts the items.
    /// - Returns: false when it cannot (nothing written: the caller saves the whole file).
    /// - Throws: `VaultError.changedOnDisk` when the file is no longer the
    ///   version `file.identity`; `.io` for a failed system call (the file is then as it was).
    static func append(_ records: SecureBytes, replacing: Bool, store: Store, file: inout FileState, directory: String) throws -> Bool {
        guard let identity = file.identity,
              takesAppendix(recordsByteCount: records.byteCount, replacing: replacing, header: file.header,
                            appendixCount: file.appendixCount, appendixByteCount: file.appendixByteCount) else { return false }
        let appendix = try VaultFile.sealAppendix(records, header: file.header, vaultKey: file.vaultKey, payloadTag: file.payloadTag, index: file.appendixCount)
        var header = file.header
        header.payloadByteCount += UInt64(appendix.count)
        guard let grown = try FileAppend.append(
            appendix, at: VaultHeader.byteCount + Int(file.header.payloadByteCount), header: header.serialized(),
            oldHeader: file.header.serialized(), to: directory + "/" + store.fileName, expected: identity) else { return false }
        file.identity = grown
        file.header = header
        file.hasUnfinishedAppend = false
        file.needsReload = false
        file.appendixCount += 1
        file.appendixByteCount += appendix.count
        return true
    }
}
