import Foundation
import KeyshelfTestSupport
import Testing

/// Issue 18 through the real binary: `associate` against a loopback HTTPS
/// site, `associations`, `dissociate`, the gated `get --client` and the git
/// helper's `credential --client git`.
@Suite struct AssociationCommandTests {
    static let app = "ABCDE12345.com.example.app"
    static let wellKnown = "/.well-known/apple-app-site-association"

    private func site(_ vault: TestVault, _ routes: [String: LoopbackSite.Route]) throws -> LoopbackSite {
        try LoopbackSite(in: vault.root, routes: routes)
    }

    @Test func associateThenGetOnlyAssociatedDomains() throws {
        let vault = try TestVault()
        let site = try site(vault, [Self.wellKnown: .listing([Self.app])])
        defer { site.stop() }
        try vault.add(site.domain, "alice", password: "Site-Pw-1")
        try vault.add("other.example", "bob", password: "Other-Pw-2")

        let associated = try vault.run(["associate", Self.app, site.domain, "--cainfo", site.certificatePath])
        #expect(associated.status == 0, "\(associated)")
        #expect(associated.stderr.contains("associated \(Self.app) with \(site.domain)"))
        let listed = try vault.run(["associations"])
        #expect(listed.lines == listed.lines.filter { $0.hasPrefix("\(Self.app)\t\(site.domain)\tverified\t") } && listed.lines.count == 1, "\(listed)")
        let json = try #require(try vault.run(["associations", Self.app, "--json"]).json() as? [[String: Any]])
        #expect(json.first?["state"] as? String == "verified" && json.first?["trust"] as? String == "own CA file")

        let got = try vault.run(["get", site.domain, "--client", Self.app, "--yes"])
        #expect(got.status == 0 && got.stdout == "Site-Pw-1\n", "\(got)")
        let every = try #require(try vault.run(["get", "--client", Self.app, "--json", "--yes"]).json() as? [[String: Any]])
        #expect(every.map { $0["account"] as? String } == ["alice"])
        let refused = try vault.run(["get", "other.example", "--client", Self.app, "--yes"])
        #expect(refused.status == 1 && refused.stdout.isEmpty, "\(refused)")
        #expect(refused.stderr.contains("is not associated with other.example") && refused.stderr.contains("keyshelf associate"))
        // Without --client: today's behaviour.
        #expect(try vault.run(["get", "other.example", "--yes"]).stdout == "Other-Pw-2\n")
        // Without a terminal or --yes the release is declined, as without --client.
        #expect(try vault.run(["get", site.domain, "--client", Self.app]).status == 4)

        #expect(try vault.run(["dissociate", Self.app, site.domain]).status == 0)
        #expect(try vault.run(["get", site.domain, "--client", Self.app, "--yes"]).status == 1)
        #expect(try vault.run(["dissociate", Self.app, site.domain]).status == 3)
        #expect(try vault.run(["associations"]).stdout.isEmpty)
    }

    @Test func untrustedOrRefusingSitesRecordNothing() throws {
        let vault = try TestVault()
        let site = try site(vault, [Self.wellKnown: .listing(["XYZ9876543.org.other"])])
        defer { site.stop() }
        let noTrust = try vault.run(["associate", Self.app, site.domain])
        #expect(noTrust.status == 1 && noTrust.stderr.contains("127.0.0.1:\(site.port)"), "\(noTrust)")
        let wrongPin = try vault.run(["associate", Self.app, site.domain, "--pin", "sha256//" + Data(repeating: 3, count: 32).base64EncodedString()])
        #expect(wrongPin.status == 1, "\(wrongPin)")
        let notListed = try vault.run(["associate", Self.app, site.domain, "--pin", site.pin])
        #expect(notListed.status == 1 && notListed.stderr.contains("does not list \(Self.app)"), "\(notListed)")
        #expect(try vault.run(["associations"]).stdout.isEmpty)
        #expect(try vault.run(["associate", Self.app, site.domain, "--pin", "sha256//short"]).status == 2)
        #expect(try vault.run(["associate", "not an app", site.domain]).status == 2)
        #expect(try vault.run(["associate", "git", "example.com", "--pin", site.pin]).status == 2)
    }

    @Test func unavailableSiteIsPendingAndNotReleased() throws {
        let vault = try TestVault()
        let site = try site(vault, [Self.wellKnown: .init(status: 503), "/apple-app-site-association": .init(status: 503)])
        defer { site.stop() }
        try vault.add(site.domain, "alice", password: "Site-Pw-1")
        let pending = try vault.run(["associate", Self.app, site.domain, "--pin", site.pin])
        #expect(pending.status == 0 && pending.stderr.contains("pending"), "\(pending)")
        #expect(try vault.run(["associations"]).stdout.contains("\tpending\t"))
        // The client asks: checked again (still 503, attempt 2), and nothing is released.
        let asked = try vault.run(["get", site.domain, "--client", Self.app, "--yes"])
        #expect(asked.status == 1 && asked.stdout.isEmpty && asked.stderr.contains("pending"), "\(asked)")
        #expect(try vault.run(["associations"]).stdout.contains("attempt 2 of 8"))
    }

    @Test func gitHelperServesOnlyTheClientsDomains() throws {
        let vault = try TestVault()
        try vault.add("git.example.com", "alice", password: "git-pw")
        try vault.add("other.example.com", "bob", password: "other-pw")
        let declared = try vault.run(["associate", "git", "git.example.com"])
        #expect(declared.status == 0 && declared.stderr.contains("declared"), "\(declared)")
        let fill = try vault.run(["credential", "--client", "git", "--yes", "get"], stdin: "protocol=https\nhost=git.example.com\n\n")
        #expect(fill.status == 0 && fill.stdout.contains("password=git-pw"), "\(fill)")
        let other = try vault.run(["credential", "--client", "git", "--yes", "get"], stdin: "protocol=https\nhost=other.example.com\n\n")
        #expect(other.status == 0 && other.stdout.isEmpty && other.stderr.contains("not associated with other.example.com"), "\(other)")
        let store = try vault.run(["credential", "--client", "git", "--yes", "store"],
                                  stdin: "protocol=https\nhost=other.example.com\nusername=bob\npassword=changed\n\n")
        #expect(store.status == 0)
        #expect(try vault.run(["get", "other.example.com", "--yes"]).stdout == "other-pw\n")
        // Without --client the helper serves every domain, as before.
        let plain = try vault.run(["credential", "--yes", "get"], stdin: "protocol=https\nhost=other.example.com\n\n")
        #expect(plain.stdout.contains("password=other-pw"))
    }
}

/// Issue 18 item 4: `keyshelf aasa check`, graded steps, no vault needed.
@Suite struct AasaCheckCommandTests {
    static let app = AssociationCommandTests.app

    @Test func gradesEachStepAndExitsZeroOnlyWhenTheAppWouldBeAssociated() throws {
        let vault = try TestVault(initialize: false)
        let listing = LoopbackSite.Route.listing([Self.app, "git"])
        var plainText = listing
        plainText.type = "text/plain"
        let site = try LoopbackSite(in: vault.root, routes: ["/apple-app-site-association": plainText])
        defer { site.stop() }
        let ok = try vault.run(["aasa", "check", site.domain, "--app", Self.app, "--cainfo", site.certificatePath])
        #expect(ok.status == 0, "\(ok)")
        for line in ["warn\tstatus\t/.well-known/apple-app-site-association answered HTTP 404", "pass\tpath\t/apple-app-site-association answered",
                     "warn\tcontent-type\t", "pass\tbyte-order-mark\tnone", "pass\tjson\t", "warn\tentries\t1 entry is not PREFIX.bundle.id",
                     "pass\tapp\t\(Self.app) is listed", "pass\tsignature\tplain JSON"] {
            #expect(ok.lines.contains { $0.hasPrefix(line) }, "\(line)\n\(ok)")
        }
        let json = try #require(try vault.run(["aasa", "check", site.domain, "--app", Self.app, "--pin", site.pin, "--json"]).json() as? [String: Any])
        #expect(json["associates"] as? Bool == true && (json["checks"] as? [[String: Any]])?.isEmpty == false)
        let other = try vault.run(["aasa", "check", site.domain, "--app", "ZZZZZ99999.org.x", "--pin", site.pin])
        #expect(other.status == 1 && other.lines.contains { $0.hasPrefix("fail\tapp\t") }, "\(other)")
        let untrusted = try vault.run(["aasa", "check", site.domain, "--app", Self.app])
        #expect(untrusted.status == 1 && untrusted.lines.first?.hasPrefix("fail\tpath\t") == true, "\(untrusted)")
    }

    @Test func byteOrderMarkAndRedirectFail() throws {
        let vault = try TestVault(initialize: false)
        let site = try LoopbackSite(in: vault.root, routes: [
            "/.well-known/apple-app-site-association": .init(status: 302, location: "https://cdn.example/aasa"),
            "/apple-app-site-association": .init(body: "\u{FEFF}{\"webcredentials\":{\"apps\":[\"\(Self.app)\"]}}"),
        ])
        defer { site.stop() }
        let result = try vault.run(["aasa", "check", site.domain, "--app", Self.app, "--pin", site.pin])
        #expect(result.status == 1, "\(result)")
        #expect(result.lines.contains { $0.hasPrefix("warn\tredirect\t") && $0.contains("cdn.example") }, "\(result)")
        #expect(result.lines.contains { $0.hasPrefix("fail\tbyte-order-mark\t") }, "\(result)")
    }
}

/// Issue 18 item 5: `login SERVER --check-url URL` against a loopback HTTPS site.
@Suite struct LoginCheckURLTests {
    @Test func basicAndFormChecksAcceptOnlyTheRightPassword() throws {
        let vault = try TestVault()
        let basic = "Basic " + Data("alice:Right-Pw1".utf8).base64EncodedString()
        let site = try LoopbackSite(in: vault.root, routes: [
            "/basic": .requiring(basic), "/form": .requiring("user=alice&pass=Right-Pw1"), "/moved": .init(status: 302, location: "/x"),
        ])
        defer { site.stop() }
        try vault.add(site.domain, "alice", password: "Right-Pw1", local: true)
        let url = "https://\(site.domain)"
        let viaBasic = try vault.run(["login", site.domain, "alice", "--check-url", url + "/basic", "--pin", site.pin])
        #expect(viaBasic.status == 0 && viaBasic.stdout == "Right-Pw1\n", "\(viaBasic)")
        let viaForm = try vault.run(["login", site.domain, "alice", "--check-url", url + "/form", "--form", "user,pass",
                                     "--cainfo", site.certificatePath])
        #expect(viaForm.status == 0, "\(viaForm)")
        // A form with other field names is refused (401): the flow then needs a prompt, and there is no terminal.
        let refused = try vault.run(["login", site.domain, "alice", "--check-url", url + "/form", "--form", "login,password", "--pin", site.pin])
        #expect(refused.status != 0 && refused.stdout.isEmpty, "\(refused)")
        let redirect = try vault.run(["login", site.domain, "alice", "--check-url", url + "/moved", "--pin", site.pin])
        #expect(redirect.status == 1 && redirect.stderr.contains("redirect"), "\(redirect)")
        let untrusted = try vault.run(["login", site.domain, "alice", "--check-url", url + "/basic"])
        #expect(untrusted.status == 1 && untrusted.stdout.isEmpty, "\(untrusted)")
        let elsewhere = try vault.run(["login", site.domain, "alice", "--check-url", "https://other.example/basic"])
        #expect(elsewhere.status == 2 && elsewhere.stderr.contains("its own site"), "\(elsewhere)")
        #expect(try vault.run(["login", site.domain, "--form", "a,b"]).status == 2)
    }
}
