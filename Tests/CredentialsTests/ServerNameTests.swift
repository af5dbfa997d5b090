import Testing
@testable import KeyshelfCredentials

@Suite struct ServerNameTests {
    @Test func unicodeALabelAndURLFormsAreOneServer() throws {
        let a = try ServerName(parsing: "bücher.example")
        let b = try ServerName(parsing: "xn--bcher-kva.example")
        let c = try ServerName(parsing: "https://BÜCHER.example:443/x")
        #expect(a == b)
        #expect(b == c)
        #expect(a.host == "xn--bcher-kva.example")
        #expect(a.displayHost == "bücher.example")
        #expect(a.port == 0)
        #expect(a.display == "bücher.example")
        #expect(ServerName(host: a.host, port: 443) == a)
    }

    @Test func nonTransitionalKeepsEszett() throws {
        let fass = try ServerName(parsing: "fass.example")
        let fasz = try ServerName(parsing: "faß.example")
        #expect(fasz.host == "xn--fa-hia.example")
        #expect(fasz.displayHost == "faß.example")
        #expect(fass != fasz)
    }

    @Test func lowerCaseAndTrailingDotDropped() throws {
        let name = try ServerName(parsing: "  WWW.Example.COM.  ")
        #expect(name.host == "www.example.com")
        #expect(name == (try ServerName(parsing: "www.example.com")))
    }

    @Test func uts46MappingOfCaseWidthAndDots() throws {
        let cjk = try ServerName(parsing: "例え。テスト")
        #expect(cjk.host.hasPrefix("xn--"))
        #expect(cjk.displayHost == "例え.テスト")
        #expect(try ServerName(parsing: "XN--BCHER-KVA.EXAMPLE") == (try ServerName(parsing: "bücher.example")))
        #expect(try ServerName(parsing: "ｅｘａｍｐｌｅ．ｃｏｍ").host == "example.com")
        #expect(try ServerName(parsing: "localhost:8080").display == "localhost:8080")
        #expect(try ServerName(parsing: "1.2.3.4.").host == "1.2.3.4")
    }

    @Test func portsAndSchemes() throws {
        let custom = try ServerName(parsing: "example.com:8443")
        #expect(custom.port == 8443)
        #expect(custom.display == "example.com:8443")
        #expect(custom.reportedPort == 8443)
        #expect(custom != (try ServerName(parsing: "example.com")))

        let http = try ServerName(parsing: "http://example.com")
        #expect(http.scheme == "http")
        #expect(http.port == 0)
        #expect(http.effectivePort == 80)
        #expect(http.reportedPort == 80)
        #expect(try ServerName(parsing: "http://example.com:80/") == http)
        #expect(try ServerName(parsing: "HTTP://example.com:443").port == 443)

        let https = try ServerName(parsing: "https://example.com")
        #expect(https.scheme == "https")
        #expect(https.reportedPort == nil)
        #expect(try ServerName(parsing: "example.com:443") == https)
        // Port 80 without a scheme is https on a non-default port.
        #expect(try ServerName(parsing: "example.com:80").port == 80)
    }

    @Test func userInfoPathQueryAndFragmentAreDropped() throws {
        let name = try ServerName(parsing: "https://alice:p%40ss@Example.com:8080/login?next=/x#top")
        #expect(name.host == "example.com")
        #expect(name.port == 8080)
        #expect(try ServerName(parsing: "bob@example.com/path") == (try ServerName(parsing: "example.com")))
        #expect(try ServerName(parsing: "https://u:p%40w@example.com").host == "example.com")
    }

    @Test func ipLiterals() throws {
        let v4 = try ServerName(parsing: "http://192.168.1.10:8080/")
        #expect(v4.host == "192.168.1.10")
        #expect(v4.display == "192.168.1.10:8080")
        let v6 = try ServerName(parsing: "https://[2001:DB8:0:0::1]:8443/x")
        #expect(v6.host == "2001:db8::1")
        #expect(v6.port == 8443)
        #expect(v6.display == "[2001:db8::1]:8443")
        let bare = try ServerName(parsing: "::1")
        #expect(bare.host == "::1")
        #expect(bare.display == "::1")
        #expect(try ServerName(parsing: "[::1]:443") == bare)
    }

    @Test(arguments: [
        ("", "no host"), ("   ", "no host"), ("exa mple.com", "space"), ("-bad-.com", "hyphen"),
        ("a..b", "empty label"), (String(repeating: "a", count: 300) + ".com", "63"),
        ("ftp://example.com", "scheme"), ("example.com:0", "port"), ("example.com:65536", "port"),
        ("example.com:8x", "port"), ("[::1", "["), ("1.2.3.999", "IPv4"), ("exa_mple.com", "\"_\""),
        ("ex\u{1B}[31m.com", "control"), ("xn--zz.example", "punycode"), (".", "no host"), ("..", "empty label"),
        ("bad-.example", "hyphen"), ("[example.com]:80", "IPv6"), ("1::2::3", "IPv6"),
        (String(repeating: "abcdefghi.", count: 26) + "com", "253"), ("[::1\u{0}evil]", "control"), ("a\u{0}.example", "control"),
        ("h.example:", "empty port"), ("https://h.example:/x", "empty port"), ("[::1]:", "empty port"),
        ("h.example:00443", "leading zero"), ("h.example:08080", "leading zero"), ("h.example:00", "leading zero"),
    ])
    func invalidNamesAreRefusedWithTheInputQuoted(input: String, why: String) {
        do {
            let name = try ServerName(parsing: input)
            Issue.record("accepted \(name.host)")
        } catch let error as ServerNameError {
            #expect(error.input == input)
            #expect(error.description.contains(InertText.quoted(input)))
            #expect(error.reason.contains(why), "\(error)")
            #expect(!error.description.contains("\u{1B}"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// Random hostile input never crashes; whatever is accepted is a fixed
    /// point: its A-label form and its display form parse back to it.
    @Test func normalisationIsIdempotentOnRandomInput() {
        let pieces = ["a", "B", "ß", "ü", "例", "xn--", "-", ".", "..", ":", "8080", "[", "]", "::1", "@", "/", "%", " ",
                      "\u{1B}", "\u{200D}", "。", "ｅ", "1", "255", "http://", "https://", "ftp://", "_", "#", "?", "\u{0}"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        var accepted = 0
        for _ in 0..<3000 {
            let input = (0..<(1 + next(6))).map { _ in pieces[next(pieces.count)] }.joined()
            guard let name = try? ServerName(parsing: input) else { continue }
            accepted += 1
            let prefix = name.scheme == "http" ? "http://" : ""
            let again = try? ServerName(parsing: prefix + (name.isIPv6 ? "[\(name.host)]" : name.host) + (name.port == 0 ? "" : ":\(name.port)"))
            #expect(again == name, "\(input.debugDescription) → \(name.host)")
            #expect((try? ServerName(parsing: prefix + name.display)) == name, "\(input.debugDescription) → \(name.display)")
            #expect(!name.host.isEmpty && name.host == name.host.lowercased())
        }
        #expect(accepted > 100)
    }

    /// `h.example:` and `h.example:00443` used to parse as `h.example`; a
    /// port that is given must be written plainly (docs/credentials.md).
    @Test func emptyPortAndLeadingZerosAreRefusedWithAClearMessage() throws {
        let empty = #expect(throws: ServerNameError.self) { try ServerName(parsing: "h.example:") }
        #expect(empty?.description == #"invalid server name "h.example:": has an empty port after ":" (give a port from 1 to 65535, or leave out the ":")"#)
        let zeros = #expect(throws: ServerNameError.self) { try ServerName(parsing: "h.example:00443") }
        #expect(zeros?.description == #"invalid server name "h.example:00443": has a port with a leading zero "00443" (write it without leading zeros)"#)
        #expect(try ServerName(parsing: "h.example:443") == ServerName(parsing: "h.example"))
        #expect(try ServerName(parsing: "h.example:8080").port == 8080)
    }

    @Test func quotingEscapesControlCharacters() {
        #expect(InertText.quoted("a\u{1B}b\"c\\") == #""a\u{1B}b\"c\\""#)
        #expect(ServerNameError(input: "x y", reason: "contains a space").description == #"invalid server name "x y": contains a space"#)
    }
}
