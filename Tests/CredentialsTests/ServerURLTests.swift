import Testing
@testable import KeyshelfCredentials

/// Issue 11 items 6–7: a SERVER or URL is read by the RFC 3986 / WHATWG
/// rules, and anything two readers could take for two hosts is refused.
@Suite struct ServerURLTests {
    /// Hostile inputs, each refused with a reason naming what is wrong.
    @Test(arguments: [
        ("http://site.example - user@other.example", "space in the user info"),
        ("site.example - user@other.example", "space in the user info"),
        ("https://a@b@other.example", "second \"@\""),
        ("https://bob:p@ss@other.example/x", "second \"@\""),
        ("https://us er@example.com", "space in the user info"),
        ("https://user\"x@example.com", "outside RFC 3986"),
        ("https://user%zz@example.com", "\"%\" not followed by two hex digits"),
        ("https://@", "no host name"),
        ("https://user@/path", "no host name"),
        ("https://:443", "no host name"),
        ("https://", "no host name"),
        ("user@", "no host name"),
        ("https://exa mple.com", "contains a space"),
        ("https://example.com\u{0}.evil", "control character"),
        ("https://ex\tample.com", "control character"),
        ("https://example.com:0", "invalid port"),
        ("https://example.com:65536", "invalid port"),
        ("https://example.com:-1", "invalid port"),
        ("https://example.com:80x", "invalid port"),
        ("https://example.com:", "empty port"),
        ("https://[::1", "unclosed"),
        ("https://[::1]x", "text after"),
        ("https://[zz::1]:80", "IPv6"),
        ("https://::1", "IPv6"),
        ("https://[fe80::1%25eth0]/", "IPv6"),
        ("ht tp://example.com", "malformed scheme"),
        ("1http://example.com", "malformed scheme"),
        ("ftp://example.com", "unsupported scheme"),
        ("https://exa%6Dple.com", "character"),
        ("https://xn--zz.example", "not a valid domain name"),
    ])
    func hostileInputIsRefused(input: String, reason: String) {
        #expect {
            _ = try ServerName(parsing: input)
        } throws: { error in
            guard let error = error as? ServerNameError else { return false }
            return error.input == input && error.reason.contains(reason)
        }
    }

    /// The host every URL reader agrees on: the authority ends at the first
    /// "/", "?" or "#", user info ends at the last "@" inside it.
    @Test(arguments: [
        ("https://bob:pw@evil.example?@git.example.org/", "evil.example", 0),
        ("https://bob:pw@evil.example#@git.example.org/", "evil.example", 0),
        ("https://evil.example/@git.example.org", "evil.example", 0),
        ("https://evil.example?x=@git.example.org", "evil.example", 0),
        ("https://alice:p%40ss@example.com:8443/x@y", "example.com", 8443),
        ("example.com/path?next=http://other.example", "example.com", 0),
        ("https://[2001:db8::1]:8443", "2001:db8::1", 8443),
        ("[::1]:65535", "::1", 65535),
        ("https://example.com:443", "example.com", 0),
        ("https://BÜCHER.example", "xn--bcher-kva.example", 0),
        ("https://ｅｘａｍｐｌｅ．ｃｏｍ", "example.com", 0),
        ("https://user:pässwörd@faß.example", "xn--fa-hia.example", 0),
        ("https://example.com/a path with spaces", "example.com", 0),
    ])
    func theHostIsTheOneOfTheAuthority(input: String, host: String, port: Int) throws {
        let server = try ServerName(parsing: input)
        #expect(server.host == host)
        #expect(server.port == port)
    }

    @Test func userInfoIsSplitAndDecoded() throws {
        let url = try ServerURL(parsing: "https://bob%40corp:pw%3A1@git.example.com:8443/team/repo.git?x#y")
        #expect(url.scheme == "https")
        #expect(url.userInfo == "bob%40corp:pw%3A1")
        #expect(url.user == "bob@corp")
        #expect(url.hasPassword)
        #expect(url.host == "git.example.com")
        #expect(url.port == "8443")
        #expect(url.path == "/team/repo.git")
        #expect(try ServerURL(parsing: "https://alice@example.com").hasPassword == false)
        #expect(try ServerURL(parsing: "https://example.com").user == nil)
    }

    @Test func messagesNeverQuoteTheUserInfo() {
        #expect(ServerURL.withoutUserInfo("https://admin:hunter2@router.example.com/x@y") == "https://router.example.com/x@y")
        #expect(ServerURL.withoutUserInfo("admin:hunter2@router.example.com") == "router.example.com")
        #expect(ServerURL.withoutUserInfo("https://a:b@c@git.example/", mark: "…@") == "https://…@git.example/")
        for input in ["https://admin:hun\"ter2@router.example", "https://admin:hunter2%z@router.example"] {
            #expect {
                _ = try ServerURL(parsing: input)
            } throws: { error in
                !((error as? ServerNameError)?.reason.contains("hunter") ?? true)
            }
        }
    }

    @Test func keychainProtocolsFoldTheirDefaultPorts() throws {
        let all = Set(ServerName.keychainProtocols.keys)
        #expect(try ServerName(parsing: "smtp://mail.example:25", schemes: all) == ServerName(host: "mail.example", port: 0, scheme: "smtp"))
        #expect(try ServerName(parsing: "smtp://mail.example:587", schemes: all).port == 587)
        #expect(try ServerName(parsing: "imap://mail.example", schemes: all).effectivePort == 143)
        #expect(throws: ServerNameError.self) { try ServerName(parsing: "gopher://x.example", schemes: all) }
    }
}
