import Foundation
import Glibc
import Testing
@testable import KeyshelfSync

/// `ChildProcess`, the runner under `Git.run`: both outputs collected in
/// full whatever their order and size, standard input delivered, exit status
/// and signal reported, and the child's directory, environment, descriptors
/// and signals as documented.
@Suite struct ChildProcessTests {
    /// A directory of its own per test, removed with the value.
    final class Scratch: @unchecked Sendable {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-child-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    let environment = ["PATH": "/usr/bin:/bin", "LC_ALL": "C"]

    func shell(_ script: String, input: [UInt8]? = nil, in directory: String = "/") throws -> ChildProcess.Output {
        try ChildProcess.run("/bin/sh", ["-c", script], environment: environment, directory: directory, input: input)
    }

    @Test func bothOutputsLargerThanAPipeBufferAreCollectedInFullWhicheverComesFirst() throws {
        // Standard error fills its pipe before standard output is written at all, then
        // more of each: a runner that read one stream to its end first would never return.
        let script = """
            head -c 300000 /dev/zero | tr '\\0' e >&2
            head -c 200000 /dev/zero | tr '\\0' o
            head -c 100000 /dev/zero | tr '\\0' E >&2
            head -c 70000 /dev/zero | tr '\\0' O
            """
        let result = try shell(script)
        #expect(result.status == 0)
        #expect(result.standardOutput == [UInt8](repeating: UInt8(ascii: "o"), count: 200_000)
                + [UInt8](repeating: UInt8(ascii: "O"), count: 70_000))
        #expect(result.standardError == [UInt8](repeating: UInt8(ascii: "e"), count: 300_000)
                + [UInt8](repeating: UInt8(ascii: "E"), count: 100_000))
    }

    @Test func inputLargerThanTheBuffersIsDeliveredWhileTheOutputIsRead() throws {
        // `cat` writes back what it reads: writing all the input before reading would deadlock.
        var generator = SystemRandomNumberGenerator()
        let input = (0..<1_500_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let result = try shell("cat; echo read >&2", input: input)
        #expect(result.status == 0)
        #expect(result.standardOutput == input)
        #expect(result.standardError == Array("read\n".utf8))
    }

    @Test func emptyInputIsAnEndOfFileAndNoInputIsDevNull() throws {
        #expect(try shell("wc -c", input: []).standardOutput == Array("0\n".utf8))
        #expect(try shell("readlink /proc/self/fd/0").standardOutput == Array("/dev/null\n".utf8))
    }

    @Test func inputTheChildNeverReadsRaisesNoSignalHere() throws {
        let result = try shell("exec 0<&-; exit 3", input: [UInt8](repeating: 1, count: 4_000_000))
        #expect(result.status == 3)
    }

    @Test func exitStatusAndSignalAreReported() throws {
        #expect(try shell("exit 7").status == 7)
        #expect(try shell("exit 0").status == 0)
        #expect(try shell("kill -TERM $$").status == 128 + SIGTERM)
    }

    @Test func theChildRunsInTheGivenDirectoryWithTheGivenEnvironmentOnly() throws {
        let scratch = try Scratch()
        try Data("here\n".utf8).write(to: scratch.url.appendingPathComponent("marker"))
        let result = try ChildProcess.run("/usr/bin/env", [], environment: ["ONLY": "this one"], directory: scratch.url.path,
                                          input: nil)
        #expect(String(decoding: result.standardOutput, as: UTF8.self) == "ONLY=this one\n")
        #expect(try shell("cat marker", in: scratch.url.path).standardOutput == Array("here\n".utf8))
    }

    @Test func theChildHoldsNoDescriptorButItsStandardStreamsAndNoSignalIsBlockedOrIgnored() throws {
        // A descriptor of ours without close-on-exec must not reach the child.
        let inherited = open("/dev/null", O_RDONLY)
        try #require(inherited >= 3)
        defer { close(inherited) }
        let result = try ChildProcess.run("/bin/ls", ["/proc/self/fd"], environment: environment, directory: "/", input: nil)
        // ls lists its own descriptor on the directory as well: one more than 0, 1 and 2.
        let listed = String(decoding: result.standardOutput, as: UTF8.self).split(separator: "\n")
        #expect(listed.count == 4 && !listed.contains(Substring(String(inherited))), "\(listed)")

        // The child inherits this thread's mask unless the runner clears it.
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGUSR1)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let signals = try ChildProcess.run("/bin/grep", ["-E", "^Sig(Blk|Ign)", "/proc/self/status"], environment: environment,
                                           directory: "/", input: nil)
        let masks = String(decoding: signals.standardOutput, as: UTF8.self).split(separator: "\n")
            .map { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
        // glibc's posix_spawn leaves its two internal signals (32 and 33) ignored; signals 1–31 are what programs meet.
        #expect(masks.count == 2 && masks[0] == 0 && masks[1].map { $0 & 0x7fff_ffff } == 0, "\(masks)")
    }

    @Test func aMissingProgramOrDirectoryIsAFailureToStart() {
        #expect(throws: ChildProcess.Failure.self) {
            try ChildProcess.run("/nonexistent/program", [], environment: [:], directory: "/", input: nil)
        }
        #expect(throws: ChildProcess.Failure.self) {
            try ChildProcess.run("/bin/sh", ["-c", "true"], environment: [:], directory: "/nonexistent/directory", input: nil)
        }
    }

    @Test func gitRunsInTheWorkTreeWithItsInputAndQuotesItsErrors() throws {
        let scratch = try Scratch()
        let git = try Git(workTree: scratch.url, environment: ["PATH": "/usr/bin:/bin", "HOME": scratch.url.path,
                                                                "GIT_CONFIG_NOSYSTEM": "1", "GIT_DIR": "/elsewhere"])
        try git.run(["init", "--quiet"])
        #expect(FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent(".git").path))
        // The id of the blob "hello\n", as `git hash-object` documents.
        #expect(try git.run(["hash-object", "--stdin"], input: Data("hello\n".utf8)).text == "ce013625030ba8dba906f756967f9e9ca394464a")
        let failed = try git.run(["rev-parse", "--verify", "no-such-revision"], check: false)
        #expect(failed.status == 128 && failed.errorText == "fatal: Needed a single revision")
        #expect { try git.run(["rev-parse", "--verify", "no-such-revision"]) } throws: {
            ($0 as? SyncError)?.reason == "git rev-parse failed: fatal: Needed a single revision"
        }
    }
}
