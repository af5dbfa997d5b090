import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfAgent

/// The codecs of the operations `login`, `import` and `export` send to the
/// agent (issue 12 item 2): every frame round-trips, every cut frame and
/// every field the CLI would refuse is rejected.
@Suite struct AgentLoginTransferWireTests {
    static func login(_ server: String, _ account: String, _ password: String, created: Date? = nil) throws -> ImportLogin {
        ImportLogin(server: try ServerName(parsing: server), path: "/login", account: account, password: Secret(utf8: password),
                    label: "Label \u{1B}[31m", comment: "a\nb", otpauth: "otpauth://totp/x?secret=JBSWY3DP", creationDate: created)
    }

    static let app = ImportLogin(server: ServerName(host: "com.Example_app", port: 0, scheme: ServerName.appScheme), path: "",
                                 account: "anna", password: Secret(utf8: "pw"), label: "", comment: "", otpauth: "", creationDate: nil)

    func decode(_ operation: ShelfOperation) throws -> (ShelfOperation, ConsentAnswers) {
        var writer = FrameWriter()
        writer.operation(operation, answers: ConsentAnswers())
        var reader = FrameReader(writer.withBody { SecureBytes(copying: $0) })
        let decoded = try reader.operation(operation.code)
        guard reader.isAtEnd else { throw AgentProtocol.MalformedFrame(reason: "bytes left") }
        return decoded
    }

    @Test func operationFramesRoundTripAndCutFramesAreRejected() throws {
        let site = try ServerName(parsing: "bücher.example:8443")
        let logins = [try Self.login("https://bücher.example:8443", "zoë", "pw1", created: Date(timeIntervalSinceReferenceDate: 786_000_000.25)),
                      try Self.login("http://[2001:db8::1]:8080", "anna", "pw2"), Self.app]
        let operations: [ShelfOperation] = [
            .lookup(server: ServerPattern(site), account: "zoë", passwordsOnly: false),
            .lookup(server: try ServerPattern(parsing: "plain.example"), account: nil, passwordsOnly: true),
            .suggestPassword(server: site),
            .suggestPassword(server: try ServerName(parsing: "ftp://files.example", schemes: ["ftp"])),
            .saveLogin(server: site, account: "anna", password: Secret(utf8: "pw"), localOnly: false),
            .saveLogin(server: try ServerName(parsing: "http://plain.example"), account: "zoë", password: Secret(utf8: "x"), localOnly: true),
            .export,
            .planImport(logins: logins, store: .shared),
            .planImport(logins: [], store: .local),
            .importLogins(additions: logins, updates: [logins[1]], store: .local),
        ]
        let answers = ConsentAnswers(approveAll: true, given: [(.release(server: site, accounts: ["anna", "zoë"]), .chose(account: "zoë"))])
        for operation in operations {
            var writer = FrameWriter(capacity: 16)
            writer.operation(operation, answers: answers)
            let whole = writer.withBody { Array($0) }
            var reader = FrameReader(SecureBytes(copying: whole))
            let (decoded, decodedAnswers) = try reader.operation(operation.code)
            #expect(reader.isAtEnd, "\(operation)")
            var again = FrameWriter()
            again.operation(decoded, answers: decodedAnswers)
            #expect(again.withBody { Array($0) } == whole, "\(operation)")
            for cut in 0..<whole.count {
                var short = FrameReader(SecureBytes(copying: whole[0..<cut]))
                #expect(throws: AgentProtocol.MalformedFrame.self, "\(operation) cut at \(cut)") { _ = try short.operation(operation.code) }
            }
        }
        guard case .planImport(let decoded, .shared) = try decode(.planImport(logins: logins, store: .shared)).0 else {
            Issue.record("not a planImport")
            return
        }
        #expect(decoded == logins)
    }

    @Test func fieldsTheCLIWouldRefuseAreRejected() throws {
        let good = try ServerName(parsing: "example.com")
        let upper = ServerName(host: "EXAMPLE.COM", port: 0, scheme: "https")
        let explicitDefaultPort = ServerName(host: "example.com", port: 8443, scheme: "https")
        func with(_ server: ServerName, account: String = "u", password: String = "p") -> ImportLogin {
            ImportLogin(server: server, path: "", account: account, password: Secret(utf8: password), label: "", comment: "", otpauth: "", creationDate: nil)
        }
        let hostile: [ShelfOperation] = [
            .lookup(server: ServerPattern(upper), account: nil, passwordsOnly: false),
            .lookup(server: ServerPattern(good), account: "", passwordsOnly: false),
            .suggestPassword(server: upper),
            .suggestPassword(server: ServerName(host: "example.com", port: 0, scheme: "x\u{1B}]")),
            .saveLogin(server: good, account: "", password: Secret(utf8: "p"), localOnly: false),
            .saveLogin(server: good, account: "u", password: Secret(utf8: ""), localOnly: true),
            .saveLogin(server: ServerName(host: "EVIL\u{1B}[2J.COM", port: 0, scheme: "https"), account: "u", password: Secret(utf8: "p"), localOnly: false),
            .planImport(logins: [with(good, account: "")], store: .shared),
            .planImport(logins: [with(good, password: "")], store: .shared),
            .planImport(logins: [with(upper)], store: .shared),
            .importLogins(additions: [], updates: [with(ServerName(host: "bad host", port: 0, scheme: "https"))], store: .local),
            .importLogins(additions: [with(ServerName(host: ".com.example", port: 0, scheme: ServerName.appScheme))], updates: [], store: .local),
            .importLogins(additions: [with(ServerName(host: "com.example", port: 80, scheme: ServerName.appScheme))], updates: [], store: .local),
            .importLogins(additions: [with(ServerName(host: "example.com", port: 0, scheme: "ftp"))], updates: [], store: .local),
        ]
        for operation in hostile {
            #expect(throws: AgentProtocol.MalformedFrame.self, "\(operation)") { _ = try decode(operation) }
        }
        // A default port written out (443 for https) is not the canonical form either.
        var writer = FrameWriter()
        writer.string("example.com")
        writer.integer(UInt16(443))
        writer.string("https")
        var reader = FrameReader(writer.withBody { SecureBytes(copying: $0) })
        #expect(throws: AgentProtocol.MalformedFrame.self) { _ = try reader.operation(.suggestPassword) }
        #expect(throws: Never.self) { _ = try decode(.suggestPassword(server: explicitDefaultPort)) }
        #expect(throws: Never.self) { _ = try decode(.planImport(logins: [Self.app], store: .shared)) }
    }

    @Test func resultsRoundTripAndCutOrForgedOnesAreRejected() throws {
        let site = try ServerName(parsing: "bücher.example:8443")
        let web = Item(id: UUID(), account: "zoë", server: site.host, protocol: "https", port: 8443, path: "/x", label: "L",
                       comment: "n\u{1B}", otpauth: "otpauth://totp/a", creationDate: Date(timeIntervalSinceReferenceDate: 1.5),
                       modificationDate: Date(timeIntervalSinceReferenceDate: 786_000_000.125), password: Secret(utf8: "pw"))
        let generic = Item(id: UUID(), itemClass: .genericPassword, account: "home", service: "wifi",
                           creationDate: Date(timeIntervalSince1970: 0), password: nil)
        var described = CredentialRecord(server: site, account: "anna", password: Secret(utf8: "pw"), store: .shared)
        described.metadata = ItemMetadata(label: "Label", notes: "line\nline", created: Date(timeIntervalSinceReferenceDate: 0.1),
                                          modified: Date(timeIntervalSinceReferenceDate: 786_000_000.3))
        var apple = CredentialRecord(server: site, account: "relay@privaterelay.appleid.com", password: nil, store: .shared)
        apple.signInWith = .apple
        let logins = [try Self.login("example.com", "a", "1"), try Self.login("example.com", "b", "2")]
        let cases: [(ShelfOperation, ShelfResult)] = [
            (.lookup(server: ServerPattern(site), account: nil, passwordsOnly: false),
             .lookedUp(server: site, record: CredentialRecord(server: site, account: "zoë", password: Secret(utf8: "pw"), store: .local))),
            (.lookup(server: ServerPattern(site), account: nil, passwordsOnly: false), .lookedUp(server: site, record: nil)),
            (.lookup(server: ServerPattern(site), account: nil, passwordsOnly: false), .lookedUp(server: site, record: apple)),
            (.lookup(server: ServerPattern(site), account: nil, passwordsOnly: false), .lookedUp(server: site, record: described)),
            (.suggestPassword(server: site), .generated(Secret(utf8: "abc-def-ghk-mnp"))),
            (.saveLogin(server: site, account: "a", password: Secret(utf8: "p"), localOnly: false), .saved(SaveResult(local: .added, shared: nil))),
            (.saveLogin(server: site, account: "a", password: Secret(utf8: "p"), localOnly: true), .saved(SaveResult(local: nil, shared: .unchanged))),
            (.export, .exported([web, generic])),
            (.export, .exported([])),
            (.planImport(logins: logins, store: .shared), .planned([.new, .update])),
            (.importLogins(additions: logins, updates: [logins[0]], store: .shared), .imported([.imported, .savedMeanwhile, .updated])),
            (.edit(server: ServerPattern(site), account: "a", filter: .both, changes: MetadataChanges(label: "L")),
             .edited(server: site, stores: [.local, .shared])),
            (.edit(server: ServerPattern(site), account: "a", filter: .both, changes: MetadataChanges(store: .shared)),
             .edited(server: site, stores: [.shared])),
            (.editGeneric(service: "wifi", account: "a", changes: MetadataChanges(label: "L")), .editedGeneric),
        ]
        for (operation, result) in cases {
            var writer = FrameWriter()
            writer.result(result)
            let whole = writer.withBody { Array($0) }
            var reader = FrameReader(SecureBytes(copying: whole))
            #expect(try reader.result(of: operation) == result, "\(result)")
            #expect(reader.isAtEnd)
            for cut in 0..<whole.count {
                var short = FrameReader(SecureBytes(copying: whole[0..<cut]))
                #expect(throws: AgentProtocol.MalformedFrame.self, "\(result) cut at \(cut)") { _ = try short.result(of: operation) }
            }
        }
        let forged: [(ShelfOperation, ShelfResult)] = [
            // Not one answer per login sent.
            (.planImport(logins: logins, store: .shared), .planned([.new])),
            (.importLogins(additions: logins, updates: [], store: .shared), .imported([.imported, .imported, .updated])),
            // A generic password's secret never travels in an export.
            (.export, .exported([Item(itemClass: .genericPassword, account: "a", service: "s", password: Secret(utf8: "x"))])),
            (.suggestPassword(server: site), .generated(Secret(utf8: ""))),
            // An edited item is in some store afterwards.
            (.edit(server: ServerPattern(site), account: "a", filter: .both, changes: MetadataChanges(label: "L")), .edited(server: site, stores: [])),
        ]
        for (operation, result) in forged {
            var writer = FrameWriter()
            writer.result(result)
            var reader = FrameReader(writer.withBody { SecureBytes(copying: $0) })
            #expect(throws: AgentProtocol.MalformedFrame.self, "\(result)") { _ = try reader.result(of: operation) }
        }
        var unknownClass = FrameWriter()
        unknownClass.integer(UInt32(1))
        unknownClass.integer(UInt8(3))
        var reader = FrameReader(unknownClass.withBody { SecureBytes(copying: $0) })
        #expect(throws: AgentProtocol.MalformedFrame.self) { _ = try reader.result(of: .planImport(logins: [logins[0]], store: .shared)) }
    }
}
