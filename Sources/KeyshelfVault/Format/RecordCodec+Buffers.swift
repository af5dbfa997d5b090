import Foundation

/// The byte-level writer and reader of `RecordCodec`'s grammar.
extension RecordCodec {
    /// Writes fields into a buffer sized beforehand (`encode`, `join`).
    ///
    /// With no `base` it only counts: `RecordCodec.encode` sizes a record by
    /// running the same code that writes it, so the size and the bytes cannot disagree.
    struct Writer {
        let base: UnsafeMutableRawPointer?
        var offset = 0

        /// A writer that stores nothing and only advances `offset`.
        static var counting: Writer { Writer(base: nil) }

        @inline(__always)
        mutating func byte(_ b: UInt8) {
            base?.storeBytes(of: b, toByteOffset: offset, as: UInt8.self)
            offset += 1
        }

        @inline(__always)
        mutating func varint(_ value: UInt64) {
            var v = value
            while v >= 0x80 {
                byte(UInt8(truncatingIfNeeded: v) | 0x80)
                v >>= 7
            }
            byte(UInt8(v))
        }

        @inline(__always)
        mutating func bytes(_ source: UnsafeRawBufferPointer) {
            guard let src = source.baseAddress, source.count > 0 else { return }
            base?.advanced(by: offset).copyMemory(from: src, byteCount: source.count)
            offset += source.count
        }

        @inline(__always)
        mutating func field(_ tag: Tag, byteCount: Int) {
            byte(tag.rawValue)
            varint(UInt64(byteCount))
        }

        @inline(__always)
        mutating func byteField(_ tag: Tag, _ value: UInt8) {
            field(tag, byteCount: 1)
            byte(value)
        }

        /// Takes the string `inout` so that it is read in place (no reference counting).
        @inline(__always)
        mutating func string(_ tag: Tag, _ value: inout String) {
            value.withUTF8 { utf8 in
                guard utf8.count > 0 else { return }
                field(tag, byteCount: utf8.count)
                bytes(UnsafeRawBufferPointer(utf8))
            }
        }

        @inline(__always)
        mutating func date(_ tag: Tag, _ value: Date) {
            field(tag, byteCount: 8)
            let bits = value.timeIntervalSinceReferenceDate.bitPattern.littleEndian
            withUnsafeBytes(of: bits) { bytes($0) }
        }
    }

    /// Reads the grammar from a buffer, bounded by `end`.
    struct Reader {
        let buffer: UnsafeRawBufferPointer
        var offset: Int
        let end: Int

        init(buffer: UnsafeRawBufferPointer, offset: Int = 0, end: Int? = nil) {
            self.buffer = buffer
            self.offset = offset
            self.end = end ?? buffer.count
        }

        mutating func byte() throws -> UInt8 {
            guard offset < end else { throw DecodeError(reason: "unexpected end of payload") }
            defer { offset += 1 }
            return buffer[offset]
        }

        mutating func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = try byte()
                guard shift < 64 else { throw DecodeError(reason: "varint too long") }
                value |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return value }
                shift += 7
            }
        }

        /// The fields of the next record (`varint(fieldsByteCount) field*`); moves past it.
        mutating func record() throws -> Range<Int> {
            let size = try varint()
            guard size <= UInt64(end - offset) else { throw DecodeError(reason: "record runs past the payload") }
            defer { offset += Int(size) }
            return offset..<(offset + Int(size))
        }

        func single(_ range: Range<Int>) throws -> UInt8 {
            guard range.count == 1 else { throw DecodeError(reason: "one-byte field of \(range.count) bytes") }
            return buffer[range.lowerBound]
        }

        func string(_ range: Range<Int>) throws -> String {
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[range])
            guard !bytes.isEmpty else { return "" }
            // String(decoding:) has the fast path; it repairs invalid UTF-8,
            // so a result that differs from the input bytes means invalid text.
            var s = String(decoding: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
            let same = s.withUTF8 { $0.count == bytes.count && memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
            guard same else { throw DecodeError(reason: "text that is not UTF-8") }
            return s
        }

        func date(_ range: Range<Int>) throws -> Date {
            guard range.count == 8 else { throw DecodeError(reason: "date of \(range.count) bytes") }
            let bits = buffer.loadLittleEndian(UInt64.self, at: range.lowerBound)
            return Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))
        }
    }
}
