import Foundation
import KeyshelfTestSupport

/// Runs keyshelf with a pseudo-terminal as its controlling terminal (Python's
/// `pty.fork`), answering prompts: for each step, wait until the output
/// shows `expect`, then type `send`. Returns the exit status and everything
/// the terminal showed.
enum PseudoTerminal {
    struct Step: Codable {
        var expect: String
        var send: String
    }

    static func run(_ arguments: [String], steps: [Step], environment: [String: String]) throws -> Run {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-pty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("drive_terminal.py")
        try Data(Self.script.utf8).write(to: script)
        var environment = environment
        environment["PTY_STEPS"] = String(decoding: try JSONEncoder().encode(steps), as: UTF8.self)
        return try Program.runDetached("/usr/bin/python3", [script.path, Keyshelf.binary.path] + arguments, environment: environment)
    }

    private static let script = #"""
        import json, os, pty, select, sys, time

        steps = json.loads(os.environ.pop("PTY_STEPS"))
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.argv[1], sys.argv[1:])
        seen = b""

        def pump(deadline):
            global seen
            ready, _, _ = select.select([fd], [], [], max(0, deadline - time.time()))
            if not ready:
                return False
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return None
            if not chunk:
                return None
            seen += chunk
            return True

        position = 0
        for step in steps:
            want = step["expect"].encode()
            deadline = time.time() + 20
            while seen.find(want, position) < 0 and time.time() < deadline:
                if pump(deadline) is None:
                    break
            found = seen.find(want, position)
            if found < 0:
                sys.stdout.buffer.write(seen)
                sys.stderr.write("never saw: " + step["expect"] + "\n")
                os.kill(pid, 9)
                sys.exit(99)
            position = found + len(want)
            time.sleep(0.05)
            os.write(fd, step["send"].encode())
        deadline = time.time() + 20
        while time.time() < deadline and pump(deadline) is not None:
            pass
        _, status = os.waitpid(pid, 0)
        sys.stdout.buffer.write(seen)
        sys.exit(os.waitstatus_to_exitcode(status))
        """#
}
