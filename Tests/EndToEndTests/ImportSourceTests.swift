import Foundation
import Testing

/// Import sources other than a CSV file through the real binary: standard
/// input, Bitwarden JSON, the report's order (issue 17 items 3, 4).
@Suite struct ImportSourceTests {
    private let bitwardenJSON = """
        {"encrypted":false,"folders":[{"id":"f1","name":"Work"}],"items":[
          {"id":"i1","type":1,"name":"Mail","folderId":"f1","notes":"n",
           "fields":[{"name":"PIN","value":"42","type":1}],
           "login":{"uris":[{"uri":"https://mail.example.org/"},{"uri":"https://webmail.example.org/"}],
                    "username":"bob","password":"mail-pw","totp":"JBSWY3DPEHPK3PXP"}},
          {"id":"i2","type":2,"name":"Note","notes":"secret note","secureNote":{"type":0}}
        ]}
        """

    @Test func dashReadsStandardInputAndJSONIsRecognisedByContent() throws {
        let vault = try TestVault()
        let result = try vault.run(["import", "-"], stdin: bitwardenJSON)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("standard input: Bitwarden JSON export, 2 row(s), into the shared store"), "\(result)")
        #expect(result.stdout.contains("imported 2, updated 0, skipped 1, failed 0"), "\(result)")
        #expect(result.stdout.contains("skipped item 2 (line 6): \"Note\": Bitwarden secure note item, not a web login"), "\(result)")
        #expect(try vault.run(["get", "webmail.example.org", "bob", "--yes"]).stdout == "mail-pw\n")
        let otp = try vault.run(["otp", "mail.example.org", "bob", "--at", "59", "--yes"])
        #expect(otp.status == 0, "\(otp)")
        let list = try vault.run(["search", "PIN: 42"])
        #expect(list.stdout.contains("mail.example.org"), "\(list)")

        let csv = try vault.run(["import", "-", "--dry-run"], stdin: "name,url,username,password\nA,https://a.example/,al,pw\n")
        #expect(csv.stdout.contains("standard input: Chrome export, 1 row(s)"), "\(csv)")
    }

    @Test func failuresComeBeforeTheAlreadySavedTail() throws {
        let vault = try TestVault()
        let rows = (1...8).map { "S\($0),https://s\($0).example/,al,pw\($0)" }.joined(separator: "\n")
        let csv = "name,url,username,password\n" + rows + "\nBad,https://bad.example/,al,\n"
        #expect(try vault.run(["import", "-"], stdin: csv).status == 0)
        let again = try vault.run(["import", "-"], stdin: csv)
        let lines = again.stdout.split(separator: "\n").map(String.init)
        #expect(lines[1] == "imported 0, updated 0, skipped 8, failed 1", "\(again)")
        #expect(lines[2].hasPrefix("  failed row 10 (line 10)"), "\(again)")
        #expect(lines[3].contains("already saved"), "\(again)")
        #expect(lines.last == "  and 3 more rows skipped: already saved", "\(again)")
    }

    @Test func encryptedBitwardenExportIsRefusedAndNothingChanges() throws {
        let vault = try TestVault()
        let before = try vault.snapshot()
        let result = try vault.run(["import", "-"], stdin: "{\"encrypted\": true, \"passwordProtected\": true, \"data\": \"2.x|y|z\"}")
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("encrypted Bitwarden export"), "\(result)")
        #expect(result.stderr.contains("\"JSON\" (not \"JSON (Encrypted)\")"), "\(result)")
        #expect(try vault.snapshot() == before)
    }

    @Test func bitwardenJSONRoundTripThroughTheBinary() throws {
        let vault = try TestVault()
        #expect(try vault.run(["import", "-"], stdin: bitwardenJSON).status == 0)
        let out = vault.root.appendingPathComponent("bw.json").path
        #expect(try vault.run(["export", out, "--format", "bitwarden-json", "--yes"]).status == 0)
        let fresh = try TestVault()
        let back = try fresh.run(["import", out])
        #expect(back.stdout.contains("imported 2, updated 0, skipped 0, failed 0"), "\(back)")
        let listed = try fresh.run(["list", "--json"])
        #expect(listed.stdout.contains("webmail.example.org"))
        let otpBefore = try vault.run(["otp", "mail.example.org", "bob", "--at", "59", "--yes"]).stdout
        #expect(try fresh.run(["otp", "mail.example.org", "bob", "--at", "59", "--yes"]).stdout == otpBefore)
        let again = fresh.root.appendingPathComponent("again.json").path
        #expect(try fresh.run(["export", again, "--format", "bitwarden-json", "--yes"]).status == 0)
        let first = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any]
        let second = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: again))) as? [String: Any]
        func names(_ json: [String: Any]?) -> [String] {
            ((json?["items"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }.sorted()
        }
        #expect(names(first) == names(second))
        #expect(names(first) == ["Mail", "Mail"])
    }
}

/// The CSV traps of issue 17 item 4, through the real binary.
@Suite struct CSVTrapTests {
    private func write(_ vault: TestVault, _ name: String, _ data: Data) throws -> String {
        let url = vault.root.appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }

    @Test func androidAppEntriesAreKeptAsAppLoginsAndExportToBitwarden() throws {
        let vault = try TestVault()
        let csv = "name,url,username,password\nApp,android://c2lnbg==@com.example.app/,carol,app-pw\n"
        let result = try vault.run(["import", "-"], stdin: csv)
        #expect(result.stdout.contains("imported 1, updated 0, skipped 0, failed 0"), "\(result)")
        #expect(try vault.run(["search", "com.example.app"]).stdout.contains("carol"))
        let json = try vault.run(["export", "-", "--format", "bitwarden-json", "--yes"])
        #expect(json.stdout.contains("\"uri\":\"androidapp://com.example.app\"}],\"username\":\"carol\",\"password\":\"app-pw\""), "\(json)")
        let chrome = try vault.run(["export", "-", "--yes"])
        #expect(chrome.status == 3, "Chrome's format has no place for it: nothing to export")
    }

    @Test func firefoxEmptyUserNameImportsWithItsRealmInTheNotes() throws {
        let vault = try TestVault()
        let csv = "\"url\",\"username\",\"password\",\"httpRealm\",\"formActionOrigin\",\"guid\",\"timeCreated\",\"timeLastUsed\",\"timePasswordChanged\"\n"
            + "\"https://router.example\",\"\",\"admin-pw\",\"Router Login\",\"\",\"{1}\",\"1\",\"1\",\"1\"\n"
        let result = try vault.run(["import", "-"], stdin: csv)
        #expect(result.stdout.contains("imported 1, updated 0, skipped 0, failed 0"), "\(result)")
        #expect(try vault.run(["get", "router.example", "--yes"]).stdout == "admin-pw\n")
        #expect(try vault.run(["search", "Router Login"]).stdout.contains("router.example"))
        let exported = try vault.run(["export", "-", "--yes"])
        #expect(exported.stdout.contains("\"https://router.example/\",\"\",\"admin-pw\""), "\(exported)")
    }

    @Test func semicolonsUTF16AndLocalisedHeadersAreRead() throws {
        let vault = try TestVault()
        let semicolons = "name;url;username;password\n\"A; B\";https://a.example/;al;\"p;w\"\n"
        #expect(try vault.run(["import", "-"], stdin: semicolons).stdout.contains("imported 1,"))
        #expect(try vault.run(["get", "a.example", "al", "--yes"]).stdout == "p;w\n")

        var utf16 = Data([0xFF, 0xFE])
        utf16.append("name,url,username,password\r\nB,https://bücher.example/,bé,pw-ü\r\n".data(using: .utf16LittleEndian)!)
        let u = try vault.run(["import", try write(vault, "u16.csv", utf16)])
        #expect(u.stdout.contains("imported 1,"), "\(u)")
        #expect(try vault.run(["get", "bücher.example", "bé", "--yes"]).stdout == "pw-ü\n")

        let localised = "Nom(name),Adresse(url),Identifiant(username),Mot de passe(password)\nC,https://c.example/,cl,pw\n"
        let l = try vault.run(["import", "-"], stdin: localised)
        #expect(l.stdout.contains("Chrome export, 1 row(s)"), "\(l)")
    }

    @Test func htmlEscapedValuesAreFlaggedAndKeptAsWritten() throws {
        let vault = try TestVault()
        let csv = "url,username,password,extra,name,grouping,fav\nhttps://a.example/,al,p&amp;w,Tom &amp; Jerry,A,Fun,0\n"
            + "http://sn,,,\"NoteType:Server\",Note,Secure,0\n"
        let result = try vault.run(["import", "-"], stdin: csv)
        #expect(result.stdout.contains("the password, notes look(s) HTML-escaped"), "\(result)")
        #expect(!result.stdout.contains("p&amp;w"))
        #expect(result.stdout.contains("LastPass secure note, not a web login"))
        #expect(try vault.run(["get", "a.example", "al", "--yes"]).stdout == "p&amp;w\n")
    }
}
