import Foundation
import KeyshelfTestSupport
import KeyshelfVault
import Testing
@testable import KeyshelfCredentials

/// Issue 18 item 3: the association file fetched over HTTPS from a loopback
/// server with its own certificate (`LoopbackSite`), trusted by `--cainfo`
/// or by `--pin`, never by default; paths, redirects, statuses and limits.
@Suite struct SiteVerifierTests {
    static let app = try! AppIdentifier("ABCDE12345.com.example.app")
    static let wellKnown = AASAFile.paths[0], root = AASAFile.paths[1]

    /// Runs `body` with a site answering `routes`, and a trust by its CA file.
    private func withSite(_ routes: [String: LoopbackSite.Route],
                          _ body: (LoopbackSite, AssociatedDomain, AssociationTrust) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-site-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let site = try LoopbackSite(in: directory, routes: routes)
        defer { site.stop() }
        let pem = try String(contentsOfFile: site.certificatePath, encoding: .utf8)
        try body(site, try AssociatedDomain(parsing: site.domain), try AssociationTrust(caPEM: pem))
    }

    private func failure(_ check: () throws -> (path: String, signed: Bool)) -> AssociationError? {
        associationError(check)
    }

    @Test func listedAppIsVerifiedByCAFileOrPin() throws {
        try withSite([Self.wellKnown: .listing(["XYZ9876543.org.other", Self.app.value])]) { site, domain, caFile in
            #expect(try SiteVerifier().check(Self.app, at: domain, trust: caFile).path == Self.wellKnown)
            #expect(try SiteVerifier().check(Self.app, at: domain, trust: AssociationTrust(pin: site.pin)).path == Self.wellKnown)
            #expect(try SiteVerifier().check(Self.app, at: domain, trust: AssociationTrust(caPEM: caFile.caPEM, pin: site.pin)).path == Self.wellKnown)
            let wrongPin = "sha256//" + Data(repeating: 9, count: 32).base64EncodedString()
            for trust in [AssociationTrust.system, try AssociationTrust(pin: wrongPin), try AssociationTrust(caPEM: caFile.caPEM, pin: wrongPin)] {
                let error = failure { try SiteVerifier().check(Self.app, at: domain, trust: trust) }
                #expect(error?.code == .network, "\(trust.summary): \(String(describing: error))")
                #expect(error?.reason.contains("127.0.0.1:\(site.port)") == true)
            }
        }
    }

    @Test func rootPathIsTheFallback() throws {
        try withSite([Self.root: .listing([Self.app.value])]) { _, domain, trust in
            let answer = try SiteVerifier().check(Self.app, at: domain, trust: trust)
            #expect(answer.path == Self.root && !answer.signed)
        }
    }

    @Test func redirectsAndMissingFilesFail() throws {
        let redirect = LoopbackSite.Route(status: 301, location: "https://elsewhere.example/aasa")
        try withSite([Self.wellKnown: redirect, Self.root: redirect]) { _, domain, trust in
            let error = failure { try SiteVerifier().check(Self.app, at: domain, trust: trust) }
            #expect(error?.code == .refusedBySite)
            #expect(error?.reason.contains("redirect") == true && error?.reason.contains("elsewhere.example") == true, "\(String(describing: error))")
        }
        try withSite([:]) { _, domain, trust in
            let error = failure { try SiteVerifier().check(Self.app, at: domain, trust: trust) }
            #expect(error?.code == .refusedBySite && error?.reason.contains("404") == true)
        }
    }

    @Test func serverErrorIsTemporaryAndRecordedAsPending() throws {
        try withSite([Self.wellKnown: .init(status: 503)]) { _, domain, trust in
            let error = failure { try SiteVerifier().check(Self.app, at: domain, trust: trust) }
            #expect(error?.code == .temporarilyUnavailable)
            let shelf = try Keyshelf(vault: MemoryVault())
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let stored = try shelf.associate(Self.app, domain, trust: trust, site: SiteVerifier(), now: now)
            guard case let .pending(attempts, next, _) = stored.state else { Issue.record("\(stored.state)"); return }
            #expect(attempts == 1 && next == now.addingTimeInterval(3 * 3600))
            #expect(shelf.associations() == [stored])
            #expect(try shelf.retryDue(site: SiteVerifier(), now: now).isEmpty)
            let retried = try shelf.retryPending(of: Self.app, site: SiteVerifier(), now: now)
            guard case .pending(2, _, _) = retried.first?.state else { Issue.record("\(retried)"); return }
            #expect(throws: AssociationError(.notAssociated, "")) { try shelf.get(server: domain.server, client: Self.app) }
        }
    }

    @Test func fileThatListsOtherAppsOrIsMalformedFails() throws {
        try withSite([Self.wellKnown: .listing(["XYZ9876543.org.other"])]) { _, domain, trust in
            let error = failure { try SiteVerifier().check(Self.app, at: domain, trust: trust) }
            #expect(error?.code == .appNotListed && error?.reason.contains("XYZ9876543.org.other") == true)
            // Nothing is stored for a site that refuses.
            let shelf = try Keyshelf(vault: MemoryVault())
            #expect(throws: AssociationError(.appNotListed, "")) { try shelf.associate(Self.app, domain, trust: trust, site: SiteVerifier()) }
            #expect(shelf.associations().isEmpty)
        }
        try withSite([Self.wellKnown: .init(body: "{\"webcredentials\": ")]) { _, domain, trust in
            #expect(failure { try SiteVerifier().check(Self.app, at: domain, trust: trust) }?.code == .malformedFile)
        }
    }

    @Test(arguments: [false, true])
    func bodyOver128KBIsCutOff(chunked: Bool) throws {
        let big = LoopbackSite.Route(body: String(repeating: " ", count: 1024), repeatCount: 200, chunked: chunked)
        try withSite([Self.wellKnown: big]) { _, domain, trust in
            let error = failure { try SiteVerifier().check(Self.app, at: domain, trust: trust) }
            #expect(error?.code == .fileTooLarge, "\(String(describing: error))")
        }
    }

    @Test func slowServerTimesOut() throws {
        try withSite([Self.wellKnown: .init(body: "{}", delay: 30)]) { _, domain, trust in
            let error = failure { try SiteVerifier(timeoutSeconds: 1).check(Self.app, at: domain, trust: trust) }
            #expect(error?.code == .network && error?.reason.contains("imeout") == true || error?.reason.contains("timed out") == true,
                    "\(String(describing: error))")
        }
    }

    @Test func signedFileIsReadOnlyAfterItVerifies() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-cms-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let signed = directory.appendingPathComponent("signed.p7").path, tampered = directory.appendingPathComponent("tampered.p7").path
        let json = #"{"webcredentials":{"apps":["\#(Self.app.value)"]}}"#
        let type = "application/pkcs7-mime"
        let site = try LoopbackSite(in: directory, routes: [
            Self.wellKnown: .init(type: type, bodyFile: signed), Self.root: .init(type: type, bodyFile: tampered),
        ])
        defer { site.stop() }
        try site.sign(json, to: signed)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: signed)))
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("ABCDE".utf8)) })
        bytes[at] = UInt8(ascii: "Z")
        try Data(bytes).write(to: URL(fileURLWithPath: tampered))
        let domain = try AssociatedDomain(parsing: site.domain)
        let trust = try AssociationTrust(caPEM: String(contentsOfFile: site.certificatePath, encoding: .utf8))
        let answer = try SiteVerifier().check(Self.app, at: domain, trust: trust)
        #expect(answer.path == Self.wellKnown && answer.signed)
        // The tampered copy at the root path: refused, never read.
        let response = HTTPSFetch.Response(status: 200, contentType: type, redirectURL: nil, body: bytes)
        let error = associationError { try SiteVerifier.read(response, from: "https://\(site.domain)/", domain: domain, trust: trust) }
        #expect(error?.code == .malformedFile && error?.reason.contains("does not verify") == true, "\(String(describing: error))")
        // A pin alone cannot check the signer.
        let pinned = associationError { try SiteVerifier().check(Self.app, at: domain, trust: AssociationTrust(pin: site.pin)) }
        #expect(pinned?.code == .malformedFile, "\(String(describing: pinned))")
    }
}
