import Foundation
import KeyshelfTestSupport
import Testing
@testable import KeyshelfClipboard
import KeyshelfCrypto

/// The clipboard rules with the real `xclip` on a private Xvfb display (issue 11, items 16, 17, 19):
/// copying never freezes the TUI, the copy is cleared after the delay even when keyshelf is gone,
/// and a value the user copied afterwards is never overwritten.
@Suite(.enabled(if: VirtualDisplay.missing == nil, "\(VirtualDisplay.missing ?? "")"))
struct ClipboardEndToEndTests {
    /// Seconds before clearing in these tests (`KEYSHELF_CLIPBOARD_CLEAR`): long enough to read the copy back first.
    static let clearSeconds = 3

    /// The TUI on `display` in tmux, anna's password copied.
    func copied(on display: VirtualDisplay, clearSeconds: Int = clearSeconds) throws -> TmuxSession {
        let tmux = try TmuxSession(samples: TUIEndToEndTests.samples)
        try tmux.start(environment: "DISPLAY=\(display.display) WAYLAND_DISPLAY= KEYSHELF_CLIPBOARD_CLEAR=\(clearSeconds)")
        try tmux.waitFor("Domains")
        try tmux.send("Tab", "c")
        try tmux.waitFor("Copied the password of anna to the X clipboard (xclip)")
        return tmux
    }

    /// The keyshelf process in the pane (the child of the pane's shell).
    func keyshelfPID(_ tmux: TmuxSession) throws -> pid_t {
        let shell = try tmux.tmux(["display", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        return try #require(children.split(separator: " ").first.flatMap { pid_t($0) })
    }

    @Test func copyDoesNotFreezeTheTUIAndIsClearedAfterTheDelay() throws {
        let display = try VirtualDisplay()
        let tmux = try copied(on: display)
        // The next key is handled: keyshelf did not wait on the xclip that stays behind.
        try tmux.send("?")
        try tmux.waitFor { $0.contains("Keys") && $0.contains("Close") }
        #expect(try display.clipboard() == "pw-anna")
        #expect(try display.waitUntilClipboard(isNot: "pw-anna") == "")
    }

    @Test(arguments: [SIGTERM, SIGHUP, SIGINT])
    func theClearHappensAfterTheTUIDiesOfASignal(_ signal: Int32) throws {
        let display = try VirtualDisplay()
        let tmux = try copied(on: display)
        #expect(try display.clipboard() == "pw-anna")
        kill(try keyshelfPID(tmux), signal)
        try tmux.waitFor("EXITED")
        #expect(try display.waitUntilClipboard(isNot: "pw-anna") == "", "the detached clearer cleared it")
    }

    @Test func quitAndLockClearAtOnce() throws {
        let display = try VirtualDisplay()
        let quitting = try copied(on: display, clearSeconds: 600)
        try quitting.send("q")
        try quitting.waitFor("EXITED 0")
        #expect(try display.clipboard() == "")

        let locking = try copied(on: display, clearSeconds: 600)
        #expect(try display.clipboard() == "pw-anna")
        try locking.send("X")
        try locking.waitFor("Unlock keyshelf")
        #expect(try display.clipboard() == "")
    }

    @Test func aValueTheUserCopiedAfterwardsIsNotOverwrittenOnQuit() throws {
        let display = try VirtualDisplay()
        let tmux = try copied(on: display, clearSeconds: 600)
        try display.copy("mine")
        try tmux.send("q")
        try tmux.waitFor("EXITED 0")
        #expect(try display.clipboard() == "mine")
    }

    /// The detached clearer itself, run by hand and waited for: it clears our value and leaves any other.
    @Test func theClearerComparesBeforeClearing() throws {
        let display = try VirtualDisplay()
        let folder = try TmuxSession(samples: [])
        for (onClipboard, expected) in [("pw-anna", ""), ("mine", "mine")] {
            try display.copy(onClipboard)
            let fingerprint = ClipboardFingerprint(of: Secret(utf8: "pw-anna"))
            let input = folder.folder.appendingPathComponent("fingerprint")
            try fingerprint.serialized().withUnsafeBytes { Data($0) }.write(to: input)
            let clearer = try TestProcess.spawn(
                [try binary(), ClipboardClearer.commandName, "0", "\(fingerprint.valueByteCount)", "x11"],
                input: input.path, environment: ["DISPLAY=\(display.display)", "PATH=/usr/bin:/bin"])
            #expect(TestProcess.wait(clearer) == 0)
            #expect(try display.clipboard() == expected, "clipboard held \(onClipboard)")
        }
    }

    /// `keyshelf get bücher.example anna --clip --yes` on the samples' vault; standard output, error and exit status.
    func getClip(environment: [String]) throws -> Run {
        let vault = try TmuxSession(samples: TUIEndToEndTests.samples)
        return try TestProcess.run(
            [try binary(), "get", "bücher.example", "anna", "--clip", "--yes", "--vault", vault.folder.appendingPathComponent("vault").path],
            environment: environment + ["PATH=/usr/bin:/bin", "KEYSHELF_TEST_KDF=minimum",
                                        "KEYSHELF_PASSWORD_FILE=\(vault.folder.appendingPathComponent("password").path)"])
    }

    @Test func getClipCopiesInsteadOfPrintingAndClearsAfterTheDelay() throws {
        let display = try VirtualDisplay()
        // Its end is seen although xclip and the clearer live on: neither holds our descriptors.
        let get = try getClip(environment: ["DISPLAY=\(display.display)", "KEYSHELF_CLIPBOARD_CLEAR=\(Self.clearSeconds)"])
        #expect(get.status == 0, "\(get.stderr)")
        #expect(get.stdout.isEmpty)
        #expect(get.stderr.contains("Copied the password of \"anna\" on bücher.example to the X clipboard (xclip); cleared in 3 s"))
        #expect(try display.clipboard() == "pw-anna")
        #expect(try display.waitUntilClipboard(isNot: "pw-anna") == "")
    }

    /// Needs a runner without a controlling terminal (else OSC 52 would go there).
    @Test(.enabled(if: open("/dev/tty", O_RDWR | O_CLOEXEC) < 0, "the runner has a terminal, which OSC 52 would reach"))
    func getClipWithNoClipboardSaysSoAndFails() throws {
        let get = try getClip(environment: [])
        #expect(get.status == 1)
        #expect(get.stdout.isEmpty, "the password is not printed instead")
        #expect(get.stderr.contains("Not copied"))
    }

    func binary() throws -> String {
        guard let binary = TmuxSession.binary else { throw TestProcessError(message: "build the keyshelf executable first (swift build)") }
        return binary.path
    }
}
