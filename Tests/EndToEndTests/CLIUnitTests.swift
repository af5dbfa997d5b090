import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCLI

/// The CLI's pure parts without a process: parsing, dialog answers, the git
/// credential format and JSON escaping.
@Suite struct CLIUnitTests {
    let spec = CommandSpec(
        name: "get", summary: "",
        positionals: [.init(name: "SERVER", help: ""), .init(name: "ACCOUNT", optional: true, help: "")],
        options: [.value("--count", "-n", valueName: "N", help: "")],
        shared: [.json, .scope])

    @Test func parsesOptionsFlagsAndPositionalsInAnyOrder() throws {
        let parsed = try ArgumentParser.parse(["--json", "example.com", "-n", "3", "alice"], spec: spec)
        #expect(parsed.positionals == ["example.com", "alice"])
        #expect(parsed.has("--json"))
        #expect(parsed.value("--count") == "3")
        #expect(try ArgumentParser.parse(["example.com", "--count=4"], spec: spec).value("--count") == "4")
    }

    /// `--count 3 -n 4` used to keep 4 silently; any repeat of an option
    /// that takes a value is refused, naming it.
    @Test(arguments: [["x", "-n", "3", "--count=4"], ["x", "--count", "3", "--count", "3"], ["--count=1", "x", "-n", "2"]])
    func aRepeatedValueOptionIsAUsageError(arguments: [String]) {
        let error = #expect(throws: UsageError.self) { try ArgumentParser.parse(arguments, spec: spec) }
        #expect(error?.message == "option '--count/-n' is given more than once")
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try ArgumentParser.parse(["--", "-weird-", "--json"], spec: spec)
        #expect(parsed.positionals == ["-weird-", "--json"])
        #expect(!parsed.has("--json"))
    }

    @Test func helpWinsOverMissingArguments() throws {
        #expect(try ArgumentParser.parse(["--help"], spec: spec).helpRequested)
    }

    @Test func unknownOptionsAndMissingValuesAreUsageErrors() {
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["x", "--nope"], spec: spec) }
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["x", "--count"], spec: spec) }
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["x", "y", "z"], spec: spec) }
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["x", "--local", "--shared"], spec: spec).sharedOptions() }
    }

    @Test(arguments: [
        ("", 0), ("n", 0), ("\u{1B}", 0), ("1", 0), ("2", 1), ("y", 1), ("delete", 1), ("D", 1), ("9", 0), ("maybe", 0),
    ])
    func dialogAnswersDefaultToTheSafeButton(answer: String, expected: Int) {
        #expect(TerminalDialog.choice(answer, buttons: ["Cancel", "Delete"]) == expected)
    }

    @Test func aReleaseDialogPicksAnAccountByNumberOrPrefix() {
        let buttons = ["Not Now", "alice", "bob"]
        #expect(TerminalDialog.choice("3", buttons: buttons) == 2)
        #expect(TerminalDialog.choice("bo", buttons: buttons) == 2)
        #expect(TerminalDialog.choice("y", buttons: buttons) == 0)
        #expect(TerminalDialog.choice(nil, buttons: buttons) == 0)
    }

    @Test func gitCredentialInputIsReadUpToTheBlankLine() throws {
        let credential = try readCredential("capability[]=authtype\nprotocol=http\nhost=127.0.0.1:8080\nusername=al=ice\npassword=p=w\n\nprotocol=ignored\n")
        #expect(credential.protocol == "http")
        #expect(credential.host == "127.0.0.1:8080")
        #expect(credential.username == "al=ice")
        #expect(credential.password == Secret(utf8: "p=w"))
        #expect(try credential.server() == (try ServerName(parsing: "http://127.0.0.1:8080")))
    }

    @Test func gitCredentialURLIsSplit() throws {
        let credential = try readCredential("url=https://bob%40corp@git.example.com:8443/team/repo.git\n")
        #expect(credential.protocol == "https")
        #expect(credential.host == "git.example.com:8443")
        #expect(credential.username == "bob@corp")
        #expect(credential.path == "team/repo.git")
    }

    @Test func valuesGitCannotCarryAreRefused() {
        #expect(GitCredential.answer(username: "alice", password: Secret(utf8: "a\nb")) == nil)
        #expect(GitCredential.answer(username: "alice", password: Secret(utf8: "a\u{0}b")) == nil)
        #expect(GitCredential.answer(username: "al\nice", password: Secret(utf8: "ab")) == nil)
        #expect(GitCredential.answer(username: "alice", password: Secret(utf8: "p w")).map { String(decoding: $0, as: UTF8.self) }
                == "username=alice\npassword=p w\n")
    }

    /// git's OAuth keys: an expired password (expiry before now, git's test)
    /// is left out with its expiry, the refresh token still sent; a token
    /// git cannot carry is never sent.
    @Test func oauthAnswer() {
        let oauth = OAuthAttributes(passwordExpiryUTC: 1_000, refreshToken: Secret(utf8: "rt"))
        let text = { (now: Double) in
            GitCredential.answer(username: "alice", password: Secret(utf8: "at"), oauth: oauth, now: Date(timeIntervalSince1970: now))
                .map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(text(1_000.5) == "username=alice\npassword=at\npassword_expiry_utc=1000\noauth_refresh_token=rt\n")
        #expect(text(1_001) == "username=alice\noauth_refresh_token=rt\n")
        #expect(GitCredential.answer(username: "alice", password: Secret(utf8: "at"),
                                     oauth: OAuthAttributes(refreshToken: Secret(utf8: "r\nt"))) == nil)
    }

    /// The OAuth keys are read (the token into secure memory); a CR or NUL
    /// in them, or an expiry that is not a number, is refused like any known key.
    @Test func oauthKeysAreReadAndChecked() throws {
        let credential = try readCredential("host=a.example\npassword_expiry_utc=1700000000\noauth_refresh_token=rt\n")
        #expect(credential.oauth == OAuthAttributes(passwordExpiryUTC: 1_700_000_000, refreshToken: Secret(utf8: "rt")))
        for bad in ["oauth_refresh_token=r\rt", "oauth_refresh_token=r\u{0}t", "password_expiry_utc=1\r0", "password_expiry_utc=soon"] {
            #expect(throws: CLIError.self, "\(bad)") { try readCredential("host=a.example\n\(bad)\n") }
        }
    }

    @Test func jsonEscapesQuotesBackslashesAndControlCharacters() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("a", "q\"b\\c\u{1}\u{7F}é")
        try writer.field("p", secret: Secret(utf8: "x\ny"))
        writer.field("n", 8443)
        writer.endObject()
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text == #"{"a":"q\"b\\c\u0001\u007fé","p":"x\ny","n":8443}"#)
        let object = try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any]
        #expect(object?["a"] as? String == "q\"b\\c\u{1}\u{7F}é")
    }

    @Test func jsonRefusesAPasswordThatIsNotUTF8AndStaysValid() throws {
        for bytes: [UInt8] in [[0xFF, 0xFE, 0x41], [0x61, 0xC3], [0xED, 0xA0, 0x80]] {
            var writer = JSONWriter()
            writer.beginObject()
            writer.field("server", "bin.example")
            #expect(throws: JSONWriter.NotUTF8.self) {
                try writer.field("password", secret: Secret(SecureBytes(copying: bytes)))
            }
            writer.endObject()
            // Nothing of the refused field was written: the object is still valid JSON.
            #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"server":"bin.example"}"#)
            #expect(try JSONSerialization.jsonObject(with: Data(writer.bytes)) is [String: Any])
        }
        var writer = JSONWriter()
        writer.beginObject()
        try writer.field("password", secret: Secret(SecureBytes(copying: [0x61, 0x00, 0x62])))
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"password":"a\u0000b"}"#)
        let object = try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any]
        #expect(object?["password"] as? String == "a\u{0}b")
    }

    @Test func inertTextEscapesUnsafeScalarsInUpperCaseHex() {
        #expect(InertText.make("ok ü 🔑") == "ok ü 🔑")
        #expect(InertText.make("a\u{1B}[2Jb\u{9B}c\u{202E}") == "a\\u{1B}[2Jb\\u{9B}c\\u{202E}")
    }

    private func readCredential(_ text: String) throws -> GitCredential {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        _ = text.utf8CString.withUnsafeBufferPointer { write(fds[1], $0.baseAddress, text.utf8.count) }
        close(fds[1])
        defer { close(fds[0]) }
        return try GitCredential.read(fd: fds[0])
    }

    @Test func errorReportAddsTheStatusWhereOneApplies() {
        let wrong = ErrorReport.describe(VaultError(.wrongPassword, file: "/v/local.vault", reason: "wrong master password"))
        #expect(wrong.code == .authFailed)
        #expect(wrong.message == "/v/local.vault: wrong master password (errSecAuthFailed -25293)")
        let missing = ErrorReport.describe(KeychainError(.itemNotFound, "no saved password for example.com"))
        #expect(missing.message == "no saved password for example.com (errSecItemNotFound -25300)")
        let declined = ErrorReport.describe(CLIError(.canceled, "export declined"))
        #expect(declined.message == "export declined (errSecUserCanceled -128)")
        #expect(ErrorReport.describe(UsageError("unknown option '--x'")).message == "unknown option '--x'")
        #expect(ErrorReport.describe(CLIError(.failure, "cannot read")).message == "cannot read")
        let io = ErrorReport.describe(VaultError(.io, file: "/v/local.vault", reason: "cannot open the file: Permission denied"))
        #expect(io.code == .failure)
        #expect(io.message == "/v/local.vault: cannot open the file: Permission denied")
    }

    @Test func quotedNamesCannotEndTheQuoteOrReachTheTerminal() {
        #expect(InertText.quoted("a\"b\\c\u{1B}[2J") == "\"a\\\"b\\\\c\\u{1B}[2J\"")
    }
}

private extension ParsedArguments {
    func sharedOptions() throws -> SharedOptions { try SharedOptions(self) }
}
