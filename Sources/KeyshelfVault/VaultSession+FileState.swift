import KeyshelfCrypto

extension VaultSession {
    /// One vault file as known to this session.
    struct FileState {
        /// The last header read or written (a template when the file is absent).
        var header: VaultHeader
        /// Argon2id output that unwraps `header.wrappedKey`.
        var passwordKey: SecureBytes
        var vaultKey: SecureBytes
        /// The version on disk that `items` came from; nil when there is no file.
        var identity: FileIdentity?
        var items: [Item]
        /// With `addedPlaintexts`, the exact record encoding of `items`; their
        /// passwords are slices of these buffers. Read it through `wholePlaintext()`.
        private(set) var plaintext: SecureBytes
        /// Record lists (`varint(count) record*`) of items `add(to:)` put after
        /// those of `plaintext`, joined only when a change needs the whole encoding.
        private var addedPlaintexts: [SecureBytes] = []
        /// Set when `items` may no longer match the disk (a failed write): the next access re-reads the file.
        var needsReload = false
        /// The MAC appendices authenticate (`VaultFile.Opened.payloadTag`: the
        /// manifest's in v3); empty for no file or a v1 file.
        var payloadTag: [UInt8] = []
        /// Appendices in the payload on disk.
        var appendixCount = 0
        /// Bytes of those appendices, length prefixes included.
        var appendixByteCount = 0
        /// Bytes followed the announced payload when the file was read (an
        /// append unfinished or under way): the file is read again next time,
        /// whatever its identity says.
        var hasUnfinishedAppend = false

        /// The state of a file read from disk.
        init(header: VaultHeader, passwordKey: SecureBytes, vaultKey: SecureBytes, identity: FileIdentity, opened: VaultFile.Opened) {
            self.header = header
            self.passwordKey = passwordKey
            self.vaultKey = vaultKey
            self.identity = identity
            self.items = opened.items
            self.plaintext = opened.plaintext
            self.payloadTag = opened.payloadTag
            self.appendixCount = opened.appendixCount
            self.appendixByteCount = opened.appendixByteCount
            self.hasUnfinishedAppend = opened.hasUnfinishedAppend
        }

        /// The encoding of `items` as one buffer (joining what `add(to:)` added).
        mutating func wholePlaintext() -> SecureBytes {
            if !addedPlaintexts.isEmpty {
                // Both come from RecordCodec.encode: well formed.
                plaintext = try! RecordCodec.join([plaintext] + addedPlaintexts)
                addedPlaintexts = []
            }
            return plaintext
        }

        /// Records that `items` and `plaintext` (their whole encoding) are current.
        mutating func adopt(_ items: [Item], plaintext: SecureBytes) {
            self.items = items
            self.plaintext = plaintext
            addedPlaintexts = []
        }

        /// Adds `added` at the end of `items`, `records` being their encoding.
        mutating func adopt(adding added: [Item], records: SecureBytes) {
            items.append(contentsOf: added)
            addedPlaintexts.append(records)
        }

        /// The state of a file not on disk yet: no items.
        init(header: VaultHeader, passwordKey: SecureBytes, vaultKey: SecureBytes) {
            var none = [Item]()
            self.header = header
            self.passwordKey = passwordKey
            self.vaultKey = vaultKey
            self.identity = nil
            self.items = []
            self.plaintext = RecordCodec.encode(&none)
        }
    }
}
