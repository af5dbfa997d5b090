import Glibc

/// The full program, `keyshelf-full`, installed beside this binary.
enum FullProgram {
    /// The file name the full program is installed under, next to `keyshelf`.
    static let name = "keyshelf-full"

    /// Replaces this process with the full program, `arguments` unchanged
    /// (the program name included), the environment and descriptors inherited.
    /// Returns only when that fails: then a message on standard error and exit 1.
    static func exec(_ arguments: [String]) -> Never {
        let path = location()
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        execv(path, &argv)
        let reason = String(cString: strerror(errno))
        var message = "keyshelf: cannot run the full program \(path): \(reason)\n"
        message.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        exit(1)
    }

    /// `keyshelf-full` in the directory of this binary (`/proc/self/exe`, symbolic links resolved).
    static func location() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return name }
        let bytes = buffer[0..<count].map { UInt8(bitPattern: $0) }
        let slash = bytes.lastIndex(of: UInt8(ascii: "/")) ?? 0
        return String(decoding: bytes[0..<slash], as: UTF8.self) + "/" + name
    }
}
