import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One system call of the storage layer that changes or syncs a file, as
/// the seam (`SystemCalls`) names it in its trace: the path is the file
/// concerned (for `fsync` of a directory, the directory).
enum SystemCall: Equatable, Sendable, CustomStringConvertible {
    /// `lstat` of a path (the unchanged check, a backup's identity).
    case examine(String)
    /// `open(O_CREAT | O_EXCL)` of a new file (a temporary file, the journal).
    case create(String)
    /// `write` / `pwrite`: one call (a large write makes several).
    case write(String)
    /// `ftruncate`.
    case truncate(String)
    /// `fsync` of a file or a directory.
    case fsync(String)
    /// `fdatasync`.
    case fdatasync(String)
    /// `link(from, to)`.
    case link(String, String)
    /// `rename(from, to)`.
    case rename(String, String)
    /// `unlink`.
    case unlink(String)

    /// "rename FROM TO", with each path written as `path` gives it.
    func description(path: (String) -> String) -> String {
        switch self {
        case .examine(let p): "examine \(path(p))"
        case .create(let p): "create \(path(p))"
        case .write(let p): "write \(path(p))"
        case .truncate(let p): "truncate \(path(p))"
        case .fsync(let p): "fsync \(path(p))"
        case .fdatasync(let p): "fdatasync \(path(p))"
        case .link(let a, let b): "link \(path(a)) \(path(b))"
        case .rename(let a, let b): "rename \(path(a)) \(path(b))"
        case .unlink(let p): "unlink \(path(p))"
        }
    }

    var description: String { description { $0 } }
}

/// The storage layer's one seam for the system calls of a save (the idea of
/// swift-system's `Mocking.swift`): every call in `SystemCall` goes through
/// `perform`, which in a test records it and may fail it on purpose.
/// Production code runs with no mock: the call runs directly.
enum SystemCalls {
    /// The mock of the current task (`SystemCalls.$mock.withValue(…)`), so
    /// tests running in parallel do not see each other's.
    @TaskLocal static var mock: SystemCallMock?

    /// Runs `body` (the system call `call`), or, under a mock, records
    /// `call` and returns -1 with `errno` set when the mock fails it.
    static func perform<R: SignedInteger>(_ call: @autoclosure () -> SystemCall, _ body: () -> R) -> R {
        if let mock, let code = mock.record(call()) {
            errno = code
            return -1
        }
        return body()
    }

    static func fsync(_ fd: Int32, path: String) -> Int32 { perform(.fsync(path)) { Glibc.fsync(fd) } }
    static func fdatasync(_ fd: Int32, path: String) -> Int32 { perform(.fdatasync(path)) { Glibc.fdatasync(fd) } }
    static func rename(_ from: String, _ to: String) -> Int32 { perform(.rename(from, to)) { Glibc.rename(from, to) } }
    static func link(_ from: String, _ to: String) -> Int32 { perform(.link(from, to)) { Glibc.link(from, to) } }
    static func unlink(_ path: String) -> Int32 { perform(.unlink(path)) { Glibc.unlink(path) } }
    static func ftruncate(_ fd: Int32, _ length: off_t, path: String) -> Int32 { perform(.truncate(path)) { Glibc.ftruncate(fd, length) } }
    /// `open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)`.
    static func create(_ path: String) -> Int32 {
        perform(.create(path)) { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
    }
}

/// A test's record of the storage layer's system calls, failing the ones
/// `failure` names. Thread-safe.
final class SystemCallMock: @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [SystemCall] = []
    /// The `errno` to fail a call with (given the call and its index in the
    /// trace), or nil to run it.
    private let failure: (SystemCall, Int) -> Int32?

    init(failing failure: @escaping (SystemCall, Int) -> Int32? = { _, _ in nil }) {
        self.failure = failure
    }

    /// The calls so far, in order (failed ones included).
    var trace: [SystemCall] { lock.withLock { calls } }

    fileprivate func record(_ call: SystemCall) -> Int32? {
        lock.withLock {
            calls.append(call)
            return failure(call, calls.count - 1)
        }
    }

    /// Runs `body` with this mock as the seam of the current task.
    func run<T>(_ body: () throws -> T) rethrows -> T {
        try SystemCalls.$mock.withValue(self, operation: body)
    }
}
