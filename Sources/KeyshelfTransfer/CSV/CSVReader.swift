import CCSV
import Glibc
import KeyshelfCrypto

/// Reads CSV files through libcsv (`csv_init` / `csv_parse` / `csv_fini`) in
/// strict mode, keeping the line where every record starts.
///
/// Before parsing, the bytes are checked to be UTF-8 without NUL and a leading
/// byte-order mark is dropped. Records may end with LF or CRLF; quoted fields
/// may hold commas, doubled quotes and line breaks. Spaces around unquoted
/// fields are kept (libcsv would trim them, which would change passwords).
/// File bytes and fields stay in sodium memory (`SecureBytes`), and libcsv's
/// own field buffer is wiped before it is freed.
///
/// A hostile file cannot exhaust memory: a file is at most `maxFileBytes`, a
/// field at most `maxFieldBytes`, a record at most `maxColumns` fields and
/// the file at most `maxRows` records after the header (docs/import.md,
/// "Limits"); a file over any of them is refused as a whole. Fields are kept
/// as one flat list of 4-byte end offsets into one arena, so memory stays
/// below a small multiple of the file size. Parsing takes time linear in the
/// file size, however long a field or however many line breaks it holds.
public enum CSVReader {
    /// The largest file read: 64 MiB, far above any password export
    /// (10,000 items take about 2 MB) and small enough to hold twice in memory.
    public static let maxFileBytes = 64 << 20
    /// The largest single field, after unquoting: 1 MiB. No password, URL or
    /// note needs more; libcsv would otherwise grow one buffer without bound.
    public static let maxFieldBytes = 1 << 20
    /// The most fields in one record: 64. The widest known export
    /// (Bitwarden) has 11 columns; one line of 67 million commas would
    /// otherwise become 67 million fields.
    public static let maxColumns = 64
    /// The most records after the header: 100,000, ten times a large
    /// password export. Every row costs memory in the plan and the report.
    public static let maxRows = 100_000
    /// Bytes handed to `csv_parse` per call, so the field size is checked
    /// before a long line is buffered whole.
    static let feedBytes = 64 << 10

    /// Reads and parses the file at `path`.
    /// - Throws: `TransferError.unreadable`, `.tooLarge`, `.empty`, `.notUTF8`,
    ///   `.malformed`, `.unterminatedQuote`, `.fieldTooLarge`, `.tooManyColumns`,
    ///   `.tooManyRows`.
    public static func read(path: String) throws -> CSVTable {
        try parse(readFile(path: path), path: path)
    }

    /// Parses `bytes` (a whole file); `path` only names the source in errors.
    /// - Throws: as `read(path:)`, except `.unreadable`.
    public static func parse(_ bytes: SecureBytes, path: String) throws -> CSVTable {
        try parse(bytes, path: path, delimiter: bytes.withUnsafeBytes(delimiter(of:)))
    }

    /// `;` when the header line (outside quotes) holds more semicolons than
    /// commas — what spreadsheets write in locales whose decimal mark is a
    /// comma — else `,`.
    static func delimiter(of bytes: UnsafeRawBufferPointer) -> UInt8 {
        var commas = 0, semicolons = 0, quoted = false
        for byte in bytes {
            if byte == 0x22 { quoted.toggle() }
            if quoted { continue }
            if byte == 0x0A || byte == 0x0D { break }
            if byte == 0x2C { commas += 1 }
            if byte == 0x3B { semicolons += 1 }
        }
        return semicolons > commas ? 0x3B : 0x2C
    }

    /// Parses `bytes` with `delimiter` (`,` or `;`) between fields.
    static func parse(_ bytes: SecureBytes, path: String, delimiter: UInt8) throws -> CSVTable {
        guard bytes.byteCount <= maxFileBytes else { throw TransferError.tooLarge(path: path, limit: maxFileBytes) }
        return try bytes.withUnsafeBytes { all in
            var body = all
            if body.starts(with: [0xEF, 0xBB, 0xBF]) {
                body = UnsafeRawBufferPointer(rebasing: body.dropFirst(3))
            }
            if let line = firstInvalidLine(body) {
                throw TransferError.notUTF8(path: path, line: line)
            }
            let state = ParseState(capacity: body.count, path: path)
            try runParser(body, state: state, path: path, delimiter: delimiter)
            guard let header = state.records.first else { throw TransferError.empty(path: path) }
            var table = CSVTable(arena: state.arena, fieldEnds: state.fieldEnds, header: [], headerLine: header.line,
                                 rows: Array(state.records.dropFirst()))
            table.header = (0..<header.fieldCount).map { table.string(header, $0).trimmingSpaces() }
            return table
        }
    }

    /// The whole file in sodium memory. Only regular files are read.
    static func readFile(path: String) throws -> SecureBytes {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) // a FIFO must not block the open; it is refused below
        guard fd >= 0 else { throw TransferError.unreadable(path: path, reason: errnoText()) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw TransferError.unreadable(path: path, reason: errnoText()) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw TransferError.unreadable(path: path, reason: "not a regular file")
        }
        let size = Int(info.st_size)
        guard size <= maxFileBytes else { throw TransferError.tooLarge(path: path, limit: maxFileBytes) }
        let buffer = SecureBytes(byteCount: size)
        var filled = 0
        try buffer.withUnsafeMutableBytes { out in
            while filled < size {
                let n = Glibc.read(fd, out.baseAddress! + filled, size - filled)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw TransferError.unreadable(path: path, reason: errnoText())
                }
                if n == 0 { break }
                filled += n
            }
        }
        return filled == size ? buffer : buffer.copy(range: 0..<filled)
    }

    /// 1-based line of the first byte that is not valid UTF-8 or is NUL; nil when the text is clean.
    static func firstInvalidLine(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var line = 1
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var afterCR = false
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\0" { return line }
                // A line ends at LF, CRLF or a lone CR, as in `lineEnd(in:from:)`.
                if scalar == "\n" && !afterCR || scalar == "\r" { line += 1 }
                afterCR = scalar == "\r"
            case .emptyInput:
                return nil
            case .error:
                return line
            }
        }
    }

    /// The index just past the line starting at `start`: after its LF, its
    /// CRLF, or a lone CR (old Mac files); `body.count` for the last line.
    static func lineEnd(in body: UnsafeRawBufferPointer, from start: Int) -> Int {
        var i = start
        while i < body.count, body[i] != 0x0A, body[i] != 0x0D { i += 1 }
        if i == body.count { return i }
        if body[i] == 0x0D, i + 1 < body.count, body[i + 1] == 0x0A { return i + 2 }
        return i + 1
    }

    /// Whether the line holds anything besides its line break.
    private static func hasContent(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count > 2 || line.contains(where: { $0 != 0x0A && $0 != 0x0D })
    }

    /// Feeds `body` to libcsv one physical line at a time (a long line in
    /// pieces of `feedBytes`), so every callback knows which line it is on
    /// and a field over `maxFieldBytes` is refused before it grows further.
    private static func runParser(_ body: UnsafeRawBufferPointer, state: ParseState, path: String, delimiter: UInt8) throws {
        var parser = csv_parser()
        guard csv_init(&parser, UInt8(CSV_STRICT | CSV_STRICT_FINI)) == 0 else {
            throw TransferError.malformed(path: path, line: 1, reason: "cannot start the CSV parser")
        }
        defer { csv_free(&parser) }
        csv_set_delim(&parser, delimiter)
        csv_set_space_func(&parser, noSpaces)
        csv_set_realloc_func(&parser, wipingRealloc)
        csv_set_free_func(&parser, wipingFree)
        csv_set_blk_size(&parser, 16 << 10)

        let context = Unmanaged.passUnretained(state).toOpaque()
        var start = 0
        while start < body.count {
            let end = lineEnd(in: body, from: start)
            if state.rowStartLine == nil, hasContent(UnsafeRawBufferPointer(rebasing: body[start..<end])) {
                state.rowStartLine = state.line
            }
            var piece = start
            while piece < end {
                let chunk = UnsafeRawBufferPointer(rebasing: body[piece..<min(piece + feedBytes, end)])
                if csv_parse(&parser, chunk.baseAddress, chunk.count, fieldEnded, recordEnded, context) != chunk.count {
                    throw failure(&parser, state: state, path: path)
                }
                if let refusal = state.refusal { throw refusal }
                if parser.entry_pos > maxFieldBytes {
                    throw TransferError.fieldTooLarge(path: path, line: state.fieldStartLine, limit: maxFieldBytes)
                }
                piece += chunk.count
            }
            state.line += 1
            start = end
        }
        state.line -= 1
        state.atEnd = true
        if csv_fini(&parser, fieldEnded, recordEnded, context) != 0 || csv_error(&parser) != CSV_SUCCESS {
            throw failure(&parser, state: state, path: path)
        }
        if let refusal = state.refusal { throw refusal }
    }

    private static func failure(_ parser: inout csv_parser, state: ParseState, path: String) -> TransferError {
        let code = csv_error(&parser)
        let reason = csv_strerror(code).map { String(cString: $0) } ?? "error \(code)"
        if code == CSV_EPARSE, state.atEnd {
            return .unterminatedQuote(path: path, line: state.fieldStartLine)
        }
        return .malformed(path: path, line: state.line, reason: reason)
    }
}

/// Mutable state shared with libcsv's callbacks through the `data` pointer.
private final class ParseState {
    /// Unescaped fields never exceed the input size, so one arena of that size holds them all.
    let arena: SecureBytes
    let path: String
    var used = 0
    /// End offset in `arena` of every field so far, in file order (`CSVTable.fieldEnds`).
    var fieldEnds: [UInt32] = []
    /// Index in `fieldEnds` of the current record's first field.
    var recordStart = 0
    /// The records so far, the header first.
    var records: [CSVTable.Row] = []
    /// Physical line being fed (1-based).
    var line = 1
    /// Line where the current record started; nil between records.
    var rowStartLine: Int?
    /// Line where the last field of the current record ended.
    var lastFieldLine: Int?
    /// Set once every line was fed, before `csv_fini`.
    var atEnd = false
    /// Why the file is refused (a limit was passed); set by the callbacks,
    /// which cannot throw, and thrown after the current piece. Once set,
    /// nothing more is stored.
    var refusal: TransferError?

    init(capacity: Int, path: String) {
        precondition(capacity <= Int(UInt32.max), "field offsets are 32-bit; CSVReader.maxFileBytes keeps files smaller")
        arena = SecureBytes(byteCount: capacity)
        self.path = path
    }

    /// The line where the field being parsed began: after the previous field, else at the record start.
    var fieldStartLine: Int { lastFieldLine ?? rowStartLine ?? line }

    func append(_ bytes: UnsafeRawPointer?, count: Int) {
        guard refusal == nil else { return }
        if count > CSVReader.maxFieldBytes {
            refusal = .fieldTooLarge(path: path, line: fieldStartLine, limit: CSVReader.maxFieldBytes)
            return
        }
        if fieldEnds.count - recordStart == CSVReader.maxColumns {
            refusal = .tooManyColumns(path: path, line: rowStartLine ?? line, limit: CSVReader.maxColumns)
            return
        }
        if count > 0, let bytes {
            arena.withUnsafeMutableBytes { $0.baseAddress!.advanced(by: used).copyMemory(from: bytes, byteCount: count) }
        }
        used += count
        fieldEnds.append(UInt32(used))
        lastFieldLine = line
    }

    func endRecord() {
        guard refusal == nil else { return }
        if records.count > CSVReader.maxRows {
            refusal = .tooManyRows(path: path, line: rowStartLine ?? line, limit: CSVReader.maxRows)
            return
        }
        records.append(CSVTable.Row(line: rowStartLine ?? line, number: records.count + 1,
                                    fields: recordStart..<fieldEnds.count))
        recordStart = fieldEnds.count
        rowStartLine = nil
        lastFieldLine = nil
    }
}

private let fieldEnded: @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Void = { bytes, count, context in
    Unmanaged<ParseState>.fromOpaque(context!).takeUnretainedValue().append(bytes, count: count)
}

private let recordEnded: @convention(c) (Int32, UnsafeMutableRawPointer?) -> Void = { _, context in
    Unmanaged<ParseState>.fromOpaque(context!).takeUnretainedValue().endRecord()
}

private let noSpaces: @convention(c) (UInt8) -> Int32 = { _ in 0 }

/// libcsv grows its field buffer only through the realloc hook (never
/// `malloc`), by `blk_size` bytes at a time, and releases it through the free
/// hook. Each block carries its capacity in a 16-byte prefix so that the old
/// block can be wiped before it is freed. Capacity at least doubles on every
/// move, so a field of n bytes costs O(n) copying, not O(n²) (one move per
/// `blk_size` bytes, each copying the whole field, made a 4 MB field take a minute).
private let blockPrefix = 16

private let wipingRealloc: @convention(c) (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer? = { old, size in
    let oldCapacity = old.map { ($0 - blockPrefix).load(as: Int.self) } ?? 0
    if let old, size <= oldCapacity { return old }
    let capacity = max(size, 2 * oldCapacity)
    guard let fresh = malloc(capacity + blockPrefix) else { return nil }
    fresh.storeBytes(of: capacity, as: Int.self)
    let payload = fresh + blockPrefix
    if let old {
        let block = old - blockPrefix
        payload.copyMemory(from: old, byteCount: oldCapacity)
        explicit_bzero(block, oldCapacity + blockPrefix)
        free(block)
    }
    return payload
}

private let wipingFree: @convention(c) (UnsafeMutableRawPointer?) -> Void = { payload in
    guard let payload else { return }
    let block = payload - blockPrefix
    explicit_bzero(block, block.load(as: Int.self) + blockPrefix)
    free(block)
}

private func errnoText() -> String {
    String(cString: strerror(errno))
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
