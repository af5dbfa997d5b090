import Foundation
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// Issue 18 items 1–2: app identifiers, associated domains, the
/// apple-app-site-association parser, the stored records and the release gate.
@Suite struct AssociationTests {
    static let app = try! AppIdentifier("ABCDE12345.com.example.app")

    @Test func appIdentifierForms() throws {
        #expect(try AppIdentifier("ABCDE12345.com.example.app").isApp)
        #expect(try !AppIdentifier("git").isApp)
        #expect(try !AppIdentifier("my-client_2").isApp)
        for bad in ["", "abcde12345.com.example", "ABCDE1234.com.x", "ABCDE12345.", "ABCDE12345.com..x",
                    "Git", "git.client", "9git", "ABCDE12345.com.ex ample", "git\u{1B}[31m", String(repeating: "a", count: 33)] {
            #expect(throws: AssociationError(.invalidAppIdentifier, "")) { try AppIdentifier(bad) }
        }
        let error = try #require(associationError { try AppIdentifier("evil\u{1B}]0;x") })
        #expect(!error.reason.contains("\u{1B}"))
    }

    @Test func domainsAreHTTPSHostAndPort() throws {
        let plain = try AssociatedDomain(parsing: "Example.COM")
        #expect(plain.key == "example.com")
        #expect(try AssociatedDomain(parsing: "webcredentials:example.com:443").key == "example.com")
        let port = try AssociatedDomain(parsing: "intranet.example:8443")
        #expect(port.key == "intranet.example:8443")
        #expect(port.fileURLs == ["https://intranet.example:8443/.well-known/apple-app-site-association",
                                  "https://intranet.example:8443/apple-app-site-association"])
        #expect(plain.covers(server("https://example.com/login")))
        #expect(!plain.covers(server("http://example.com")))
        #expect(!plain.covers(server("example.com:8443")))
        #expect(!plain.covers(server("login.example.com")))
        for bad in ["http://example.com", "*.example.com", "example.com?mode=developer", "", "exa mple.com"] {
            #expect(throws: AssociationError(.invalidDomain, "")) { try AssociatedDomain(parsing: bad) }
        }
    }

    @Test func fileListsWebcredentialsApps() throws {
        let json = #"{"applinks":{"details":[]},"webcredentials":{"apps":["ABCDE12345.com.example.app","git","XYZ9876543.org.other"]}}"#
        let file = try AASAFile(parsing: Array(json.utf8))
        #expect(file.lists(Self.app))
        #expect(file.apps.map(\.value) == ["ABCDE12345.com.example.app", "XYZ9876543.org.other"])
        #expect(file.invalidEntries == ["git"])
        #expect(!file.lists(try AppIdentifier("ZZZZZ12345.com.example.app")))
    }

    @Test(arguments: [
        ("\u{FEFF}{\"webcredentials\":{\"apps\":[]}}", "byte-order mark"),
        ("{\"webcredentials\":{\"apps\":[]}", "not valid JSON"),
        ("[\"ABCDE12345.com.example.app\"]", "not an object"),
        ("{\"applinks\":{\"apps\":[],\"details\":[]}}", "no \"webcredentials\""),
        ("{\"webcredentials\":[\"ABCDE12345.com.example.app\"]}", "not an object"),
        ("{\"webcredentials\":{\"app\":[]}}", "no \"apps\" array"),
        ("{\"webcredentials\":{\"apps\":[1]}}", "not a string"),
        ("{\"webcredentials\":{\"apps\":[]}} // comment", "not valid JSON"),
        (String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000), "nested"),
    ])
    func hostileOrMalformedFilesAreRefused(text: String, says: String) throws {
        let error = try #require(associationError { try AASAFile(parsing: Array(text.utf8)) })
        #expect(error.code == .malformedFile)
        #expect(error.reason.contains(says), "\(error.reason)")
    }

    @Test func nonUTF8AndOversizedFilesAreRefused() throws {
        #expect(throws: AssociationError(.malformedFile, "")) { try AASAFile(parsing: [0x7B, 0xFF, 0x7D]) }
        var big = Array(#"{"webcredentials":{"apps":["ABCDE12345.com.example.app"]},"pad":""#.utf8)
        big += [UInt8](repeating: 0x61, count: AASAFile.maximumByteCount - big.count - 1) + Array("\"}".utf8)
        let error = try #require(associationError { try AASAFile(parsing: big) })
        #expect(error.code == .fileTooLarge)
        big.removeLast(3)
        big += Array("\"}".utf8)
        #expect(big.count == AASAFile.maximumByteCount)
        #expect(try AASAFile(parsing: big).lists(Self.app))
    }

    @Test func pinsAndCertificatesAreChecked() throws {
        let pin = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
        #expect(try AssociationTrust(pin: pin + ";" + pin).pin != nil)
        for bad in ["sha256//abc", "sha1//" + Data(repeating: 7, count: 20).base64EncodedString(), pin + ";"] {
            #expect(throws: AssociationError(.invalidTrust, "")) { try AssociationTrust(pin: bad) }
        }
        #expect(throws: AssociationError(.invalidTrust, "")) { try AssociationTrust(caPEM: "hello") }
    }

    @Test func recordsRoundTripAndStayOutOfListings() throws {
        let vault = MemoryVault(items: StoredItems(shared: [internetItem("example.com", "alice", "Pw-1")]))
        let shelf = try Keyshelf(vault: vault)
        let domain = try AssociatedDomain(parsing: "example.com")
        let pin = "sha256//" + Data(repeating: 1, count: 32).base64EncodedString()
        let verified = Association(app: Self.app, domain: domain,
                                   state: .verified(at: Date(timeIntervalSince1970: 1_700_000_000), path: AASAFile.paths[0], signed: false),
                                   trust: try AssociationTrust(pin: pin))
        try shelf.record(verified)
        let pending = Association(app: try AppIdentifier("ZZZZZ99999.org.x"), domain: try AssociatedDomain(parsing: "other.example:8443"),
                                  state: Association.afterTemporaryFailure(attemptsBefore: 0, reason: "HTTP 503", now: Date(timeIntervalSince1970: 1_700_000_000)))
        try shelf.record(pending)
        let again = try Keyshelf(vault: vault)
        #expect(again.associations() == [verified, pending])
        #expect(again.associations(of: Self.app) == [verified])
        #expect(again.entries().map(\.account) == ["alice"])
        let stored = try #require(try vault.loadItems().shared.first { $0.service == AssociationRecords.service && $0.account.hasPrefix("ABCDE") })
        #expect(stored.itemClass == .genericPassword && stored.synchronizable)
        #expect(stored.account == "ABCDE12345.com.example.app example.com")
        if case let .pending(attempts, next, _) = pending.state {
            #expect(attempts == 1 && next == Date(timeIntervalSince1970: 1_700_000_000 + 3 * 3600))
        } else {
            Issue.record("not pending")
        }
        try again.dissociate(Self.app, domain)
        #expect(again.associations(of: Self.app).isEmpty)
        #expect(throws: KeychainError(.itemNotFound, "")) { try again.dissociate(Self.app, domain) }
    }

    @Test func eighthTemporaryFailureGivesUp() {
        let state = Association.afterTemporaryFailure(attemptsBefore: 7, reason: "HTTP 503", now: Date())
        guard case .failed = state else { Issue.record("\(state)"); return }
    }

    @Test func gateReleasesOnlyAssociatedDomainsAndNamesTheClient() throws {
        let vault = MemoryVault(items: StoredItems(shared: [
            internetItem("example.com", "alice", "Pw-1"), internetItem("other.example", "bob", "Pw-2"),
            internetItem("third.example", "carol", "Pw-3"),
        ]))
        let consent = ScriptedConsent(otherwise: .approved)
        let shelf = try Keyshelf(vault: vault, consent: consent)
        let client = try AppIdentifier("git")
        #expect(throws: AssociationError(.notAssociated, "")) { try shelf.get(server: nil, client: client) }
        try shelf.record(Association(app: client, domain: try AssociatedDomain(parsing: "example.com"), state: .declared(at: Date())))
        try shelf.record(Association(app: client, domain: try AssociatedDomain(parsing: "third.example"), state: .declared(at: Date())))
        try shelf.record(Association(app: client, domain: try AssociatedDomain(parsing: "other.example"),
                                     state: .failed(at: Date(), reason: "HTTP 404")))
        let one = try shelf.get(server: server("example.com"), client: client)
        #expect(one.map(\.account) == ["alice"])
        #expect(consent.requests.last == .releaseToClient(client: "git", server: server("example.com"), accounts: ["alice"]))
        #expect(consent.requests.last?.message.contains("\"git\"") == true)
        let refused = try #require(associationError { try shelf.get(server: server("other.example"), client: client) })
        #expect(refused.code == .notAssociated && refused.reason.contains("failed"))
        let stranger = try #require(associationError { try shelf.get(server: server("fourth.example"), client: client) })
        #expect(stranger.reason.contains("keyshelf associate git fourth.example"))
        let every = try shelf.get(server: nil, client: client)
        #expect(every.map(\.account) == ["alice", "carol"])
        // Without a client, today's rule: every domain, consent without a client.
        #expect(try shelf.get(server: server("other.example")).account == "bob")
        #expect(consent.requests.last == .release(server: server("other.example"), accounts: ["bob"]))
    }
}

/// The `AssociationError` `body` throws; nil when it throws none (or another error).
func associationError(_ body: () throws -> Any) -> AssociationError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error as? AssociationError
    }
}
