import Foundation
import KeyshelfTestSupport
import Testing

/// `keyshelf` and `keyshelf demo` refuse at once, on standard error, when
/// standard input or output is not a terminal (a script, a pipe, cron).
@Suite struct NoTerminalTests {
    /// Runs the binary with the given standard input and output; kills it after 10 s (a hang fails the test).
    /// Temporary files (a demo vault) go to a folder of its own, removed afterwards.
    func run(_ arguments: [String], input: FileHandle, output: FileHandle?) throws -> Run {
        let binary = try #require(TmuxSession.binary, "build the keyshelf executable first (swift build)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-notty-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let environment = ["TERM": "xterm-256color", "LANG": "C.UTF-8", "HOME": folder.path, "TMPDIR": folder.path,
                           "XDG_DATA_HOME": folder.path, "XDG_CONFIG_HOME": folder.path]
        let result = try Program.run(binary.path, arguments, environment: environment, input: input, output: output, timeout: 10)
        if result.timedOut { Issue.record("keyshelf \(arguments.joined(separator: " ")) did not exit within 10 s") }
        return result
    }

    static let message = "keyshelf: the terminal UI needs a terminal; use the subcommands (keyshelf --help) in scripts\n"

    @Test(arguments: [["demo"], []])
    func refusesWithoutATerminal(arguments: [String]) throws {
        let result = try run(arguments, input: FileHandle(forReadingAtPath: "/dev/null")!, output: nil)
        #expect(result.status == 2)
        #expect(result.stderr == Self.message)
        #expect(result.stdout.isEmpty, "no curses escapes in the pipe")
    }

    @Test func refusesWhenOnlyOneSideIsATerminal() throws {
        let terminal = try PseudoTerminal()
        let outputPiped = try run(["demo"], input: terminal.follower, output: nil)
        #expect(outputPiped.status == 2)
        #expect(outputPiped.stderr == Self.message)
        #expect(outputPiped.stdout.isEmpty)

        let inputFromNull = try run(["demo"], input: FileHandle(forReadingAtPath: "/dev/null")!, output: terminal.follower)
        #expect(inputFromNull.status == 2)
        #expect(inputFromNull.stderr == Self.message)
    }
}

/// A pseudo-terminal pair; the follower side is a terminal (`isatty`) for a child process.
final class PseudoTerminal {
    let leader: Int32
    let follower: FileHandle

    init() throws {
        // posix_openpt/grantpt/unlockpt are hidden by Glibc's module; /dev/ptmx and two ioctls do the same.
        // TIOCSPTLCK and TIOCGPTN are macros Swift cannot import; these are their Linux values.
        let TIOCSPTLCK: UInt = 0x4004_5431
        let TIOCGPTN: UInt = 0x8004_5430
        leader = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard leader >= 0, ioctl(leader, TIOCSPTLCK, &unlock) == 0, ioctl(leader, TIOCGPTN, &number) == 0 else {
            throw TestProcessError(message: "no pseudo-terminal")
        }
        let fd = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { throw TestProcessError(message: "cannot open /dev/pts/\(number)") }
        follower = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    deinit { close(leader) }
}
