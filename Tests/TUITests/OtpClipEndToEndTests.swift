import Foundation
import KeyshelfTestSupport
import Testing
import KeyshelfCredentials

/// `keyshelf otp SERVER ACCOUNT --clip` with the real `xclip` on a private
/// Xvfb display (issue 16 item 2): the code goes to the clipboard, not to
/// standard output; with fewer than 5 s left the next code is copied.
@Suite(.enabled(if: VirtualDisplay.missing == nil, "\(VirtualDisplay.missing ?? "")"))
struct OtpClipEndToEndTests {
    /// `keyshelf otp bücher.example anna --clip --yes` plus `extra` on the samples' vault, anna holding the RFC key (6 digits).
    func otpClip(_ extra: [String], display: VirtualDisplay) throws -> Run {
        let vault = try TmuxSession(samples: TUIEndToEndTests.samples)
        try vault.setOneTimeSecret(OneTimeCodeEndToEndTests.uri, server: "bücher.example", account: "anna")
        let binary = try #require(TmuxSession.binary, "build the keyshelf executable first (swift build)")
        return try TestProcess.run(
            [binary.path, "otp", "bücher.example", "anna", "--clip", "--yes", "--vault", vault.folder.appendingPathComponent("vault").path] + extra,
            environment: ["DISPLAY=\(display.display)", "KEYSHELF_CLIPBOARD_CLEAR=3", "PATH=/usr/bin:/bin", "KEYSHELF_TEST_KDF=minimum",
                          "KEYSHELF_PASSWORD_FILE=\(vault.folder.appendingPathComponent("password").path)"])
    }

    @Test func copiesTheCodeInsteadOfPrintingIt() throws {
        let display = try VirtualDisplay()
        let run = try otpClip(["--at", "20"], display: display)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("Copied the one-time code of \"anna\" on bücher.example to the X clipboard (xclip); cleared in 3 s"))
        #expect(!run.stderr.contains("left for the current code"))
        #expect(try display.clipboard() == "755224")
        #expect(try display.waitUntilClipboard(isNot: "755224") == "")
    }

    @Test func withFewerThanFiveSecondsLeftTheNextCodeIsCopied() throws {
        let display = try VirtualDisplay()
        let run = try otpClip(["--at", "26"], display: display)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("4 s left for the current code: copying the next one"))
        #expect(try display.clipboard() == "287082", "the code of 30–59, not of 0–29 (755224)")
    }

    /// On the real clock the code copied still has at least 5 s when it is copied (or is the next one).
    @Test func onTheRealClockTheCopiedCodeIsCurrent() throws {
        let display = try VirtualDisplay()
        let start = Date()
        let run = try otpClip([], display: display)
        #expect(run.status == 0, "\(run.stderr)")
        let auth = try OTPAuth.parse(OneTimeCodeEndToEndTests.uri)
        let end = Int64(Date().timeIntervalSince1970) + 1
        let copied = try display.clipboard()
        // Never the code of a period that had fewer than 5 s left when the command started.
        let valid = Set((Int64(start.timeIntervalSince1970)...end).filter { auth.code(at: $0).remaining! >= 5 }.map { auth.code(at: $0).code })
        #expect(valid.contains(copied), "copied \(copied)")
    }
}
