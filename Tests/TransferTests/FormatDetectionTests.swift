import Testing
@testable import KeyshelfTransfer

@Suite struct FormatDetectionTests {
    @Test(arguments: [
        ("chrome.csv", ImportFormat.chrome),
        ("chrome-old.csv", .chrome),
        ("firefox.csv", .firefox),
        ("bitwarden.csv", .bitwarden),
        ("keepassxc.csv", .keepassxc),
        ("safari.csv", .safari),
        ("1password.csv", .onePassword),
        ("lastpass.csv", .lastpass),
    ])
    func fixtureHeaderIsRecognised(file: String, format: ImportFormat) throws {
        let table = try CSVReader.read(path: FixtureFiles.path(file))
        #expect(ImportFormat.detect(header: table.header) == format)
    }

    @Test func unknownHeaderIsNotGuessed() throws {
        let table = try CSVReader.read(path: FixtureFiles.path("unknown.csv"))
        #expect(ImportFormat.detect(header: table.header) == nil)
    }

    @Test func columnsAreMatchedByNameInAnyOrderAndCase() throws {
        let map = try ColumnMap(header: ["Password", "URL", "extra column", "Name", "Username"], format: .chrome, path: "f")
        #expect(map.index(of: .password) == 0)
        #expect(map.index(of: .url) == 1)
        #expect(map.index(of: .title) == 3)
        #expect(map.index(of: .account) == 4)
        #expect(map.index(of: .notes) == nil)
        #expect(map.ignoredColumns == ["extra column"])
    }

    @Test func unusedColumnsOfAFormatAreReportedAsIgnored() throws {
        let table = try CSVReader.read(path: FixtureFiles.path("firefox.csv"))
        let map = try ColumnMap(header: table.header, format: .firefox, path: "f")
        #expect(map.ignoredColumns == ["formActionOrigin", "guid", "timeCreated", "timeLastUsed", "timePasswordChanged"])
    }

    @Test func forcedFormatWithoutItsColumnsIsRefused() throws {
        #expect(throws: TransferError.missingColumns(path: "f", format: .bitwarden, columns: ["type", "login_uri", "login_username", "login_password"])) {
            try ColumnMap(header: ["name", "url", "username", "password"], format: .bitwarden, path: "f")
        }
    }
}
