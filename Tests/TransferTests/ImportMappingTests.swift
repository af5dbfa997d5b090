import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTransfer

/// Each fixture read into an empty store: which rows become which items, and
/// which are reported with which reason and position.
@Suite struct ImportMappingTests {
    private func plan(_ file: String, format: ImportFormat? = nil) throws -> ImportPlan {
        ImportPlan(source: try ImportSource.read(path: FixtureFiles.path(file), format: format), existing: [], store: .shared)
    }

    private func item(_ items: [Item], _ host: String, _ account: String) -> Item? {
        items.first { $0.server == host && $0.account == account }
    }

    private func reasons(_ rows: [ReportedRow]) -> [Int: String] {
        Dictionary(uniqueKeysWithValues: rows.map { ($0.position.row, $0.reason) })
    }

    @Test func chromeExportWithEveryTrapInIt() throws {
        let plan = try plan("chrome.csv")
        #expect(plan.source.format == .chrome)
        #expect(plan.source.ignoredColumns.isEmpty)
        #expect(plan.source.rowCount == 12)
        #expect(reasons(plan.skipped) == [3: "duplicate of row 2", 12: "empty row"])
        #expect(reasons(plan.failed) == [5: "no password"])
        #expect(plan.failed.map(\.position.line) == [7])

        var items: [Item] = []
        let report = plan.apply(to: &items)
        #expect(report.imported.count == 9)
        #expect(items.count == 9)
        // Issue 17: an Android app entry is kept as an app login, not dropped.
        let app = try #require(items.first { $0.protocol == "androidapp" })
        #expect(app.server == "com.example.app" && app.path == "")

        let alice = try #require(item(items, "example.com", "alice"))
        #expect(alice.password == Secret(utf8: "pa,ss\"word"))
        #expect(alice.comment == "note with, comma")
        #expect(alice.label == "example.com")
        #expect(alice.port == 0 && alice.protocol == "https" && alice.path == "/login")
        #expect(alice.synchronizable)

        let bob = try #require(item(items, "shop.example", "bob"))
        #expect(bob.password == Secret(utf8: "two\r\nlines"))
        #expect(bob.comment == "first line\r\nsecond line")

        let dave = try #require(item(items, "port.example", "dave"))
        #expect(dave.port == 8443)
        #expect(dave.password == Secret(utf8: "s3cret"))

        let erin = try #require(item(items, "plain-http.example", "erin"))
        #expect(erin.port == 0 && erin.protocol == "http")

        #expect(item(items, "xn--fa-hia.example", "frank")?.password == Secret(utf8: "straße"))
        #expect(item(items, "xn--bcher-kva.example", "gina") != nil)
        #expect(item(items, "spaces.example", "ivan")?.password == Secret(utf8: " padded "))
        #expect(item(items, "totp.example", "judy")?.comment == "otpauth://totp/Totp:judy?secret=JBSWY3DPEHPK3PXP")
    }

    @Test func userInfoInAURLIsReportedWithoutTheSecret() throws {
        let plan = try plan("chrome.csv")
        #expect(plan.source.notes.map(\.account) == ["dave"])
        #expect(plan.source.notes.first?.server == "port.example:8443")
        #expect(plan.source.notes.first?.reason == "the URL's user info (a user name and a password, not shown) was dropped")
        var items: [Item] = []
        let lines = plan.apply(to: &items).lines
        #expect(lines.contains { $0.hasPrefix("  note row ") && $0.contains("\"dave\" on port.example:8443: the URL's user info") }, "\(lines)")
        #expect(!lines.joined().contains("hunter2"))
    }

    @Test func olderChromeWithoutNotesNeedsAUserName() throws {
        let plan = try plan("chrome-old.csv")
        #expect(plan.additions.map(\.account) == ["alice"])
        #expect(reasons(plan.failed) == [3: "no user name"])
    }

    @Test func firefoxSkipsItsOwnAccountEntry() throws {
        let plan = try plan("firefox.csv")
        #expect(plan.additions.map(\.server.display) == ["example.com", "intranet.example:8080", "bücher.example"])
        #expect(reasons(plan.skipped) == [4: "chrome:// entry, not a web login"])
        #expect(plan.source.ignoredColumns.count == 5)
    }

    @Test func bitwardenKeepsLoginsAndTOTPAndSkipsNotesCardsAndApps() throws {
        let plan = try plan("bitwarden.csv")
        // Issue 17: the second URI of a row is a second server of the account, not dropped.
        #expect(plan.additions.map(\.server.host) == ["example.com", "mail.example.org", "webmail.example.org", "com.example.app", "totp.example"])
        #expect(plan.additions[3].server.scheme == "androidapp")
        #expect(reasons(plan.skipped) == [
            4: "Bitwarden note item, not a web login",
            5: "Bitwarden card item, not a web login",
        ])
        #expect(plan.source.ignoredColumns == ["favorite", "reprompt"])
        #expect(plan.additions[1].comment == "custom: value", "custom fields are kept in the notes")
        #expect(plan.additions[0].otpauth == "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP&issuer=Example")
        #expect(plan.additions[0].comment == "notes, with comma")
        #expect(plan.additions[1].label == "Work/Mail")
        #expect(plan.additions[2].label == "Work/Mail")
        #expect(plan.additions[4].otpauth == "otpauth://totp/totp.example%3Adave?secret=JBSWY3DPEHPK3PXP&issuer=totp.example")
    }

    @Test func keepassxcEntryWithoutURLFailsWithItsLine() throws {
        let plan = try plan("keepassxc.csv")
        #expect(plan.additions.map(\.server.host) == ["example.com", "login.example.org"])
        #expect(plan.additions[0].comment == "multi\nline note")
        #expect(plan.additions[0].otpauth.hasPrefix("otpauth://totp/Example:alice?"))
        #expect(reasons(plan.failed) == [3: "no URL (server)"])
        #expect(plan.failed.map(\.position.line) == [4])
        #expect(plan.source.ignoredColumns == ["Icon", "Last Modified", "Created"])
        #expect(plan.additions[0].label == "Example", "the root group is not a folder")
    }

    @Test func safariAnd1PasswordKeepOTPAuthAndNotes() throws {
        let safari = try plan("safari.csv")
        #expect(safari.additions.count == 2)
        #expect(safari.additions[1].otpauth.hasPrefix("otpauth://totp/accounts.example.org:bob?"))
        #expect(safari.additions[1].comment == "Shared with family")

        let onePassword = try plan("1password.csv")
        #expect(onePassword.source.format == .onePassword)
        #expect(onePassword.additions.map(\.server.display) == ["example.com", "192.168.1.1"])
        #expect(onePassword.additions[1].server.scheme == "http")
        #expect(onePassword.source.ignoredColumns == ["Favorite", "Archived", "Tags"])
    }

    @Test func lastpassSecureNoteIsSkipped() throws {
        let plan = try plan("lastpass.csv")
        #expect(plan.additions.map(\.server.display) == ["example.com", "www.example.net:8443"])
        #expect(plan.additions[1].comment == "some note")
        #expect(reasons(plan.skipped) == [3: "LastPass secure note, not a web login"])
        #expect(plan.source.ignoredColumns == ["fav"])
        #expect(plan.additions[0].label == "Social/Example")
    }

    @Test func unknownHeaderIsRefusedUnlessAFormatIsChosen() throws {
        let path = FixtureFiles.path("unknown.csv")
        #expect(throws: TransferError.unknownFormat(path: path, header: ["site", "login", "secret"])) {
            try ImportSource.read(path: path)
        }
        #expect(throws: TransferError.missingColumns(path: path, format: .chrome, columns: ["name", "url", "username", "password"])) {
            try ImportSource.read(path: path, format: .chrome)
        }
    }

    @Test func rowWithAnUnquotedCommaFailsInsteadOfShiftingColumns() throws {
        let table = try CSVReader.parse(SecureBytes(utf8: "name,url,username,password,note\nx,https://x.example/,al,ice,pw,\n"), path: "t.csv")
        let source = try ImportSource(table: table, path: "t.csv", format: nil)
        #expect(source.failed.map(\.reason) == ["has 6 fields but the header has 5"])
    }

    @Test func badURLsAreReportedWithTheirReason() throws {
        let table = try CSVReader.parse(SecureBytes(utf8: "name,url,username,password\nx,https://exa mple.com/,al,pw\ny,https://example.com:99999/,al,pw\n"), path: "t.csv")
        let source = try ImportSource(table: table, path: "t.csv", format: nil)
        #expect(source.failed.map(\.reason) == ["URL contains a space", "URL has an invalid port \"99999\" (1–65535)"])
    }

    @Test func passwordInAURLNeverReachesTheReport() throws {
        let table = try CSVReader.parse(SecureBytes(utf8: "name,url,username,password\nx,https://al:hunter2@x.example:0/,al,pw\ny,ftp://al:hunter3@files.example/,al,pw\n"), path: "t.csv")
        let source = try ImportSource(table: table, path: "t.csv", format: nil)
        #expect(source.failed.map(\.server) == ["https://x.example:0/"])
        #expect(source.skipped.map(\.server) == ["ftp://files.example/"])
    }

    @Test(arguments: [
        ("https://a.example.com/login", "/login"),
        ("https://alice:pw@a.example.com:8443/a/b?next=/x#top", "/a/b"),
        ("https://a.example.com/", ""),
        ("https://a.example.com", ""),
        ("https://a.example.com?q=1", ""),
        ("a.example.com/sign-in", "/sign-in"),
    ])
    func theURLPathIsKeptWithoutQueryOrFragment(url: String, path: String) {
        #expect(EntryMapper.path(of: url) == path)
    }
}
