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
    }

    @Test func nonTransitionalKeepsEszett() throws {
        let fass = try ServerName(parsing: "fass.example")
        let fasz = try ServerName(parsing: "faß.example")
        #expect(fasz.host == "xn--fa-hia.example")
        #expect(fass != fasz)
    }

    @Test(arguments: ["", "   ", "exa mple.com", "-bad-.com", "a..b", String(repeating: "a", count: 300) + ".com",
                      "ftp://example.com", "example.com:0", "example.com:65536", "example.com:8x", "[::1", "1.2.3.999",
                      "exa_mple.com", "ex\u{1B}[31m.com", "xn--zz.example", ".", "..", "bad-.example"])
    func invalidNamesAreRefusedWithTheInputQuoted(input: String) {
        do {
            let name = try ServerName(parsing: input)
            Issue.record("accepted \(name.host)")
        } catch let error as ServerNameError {
            #expect(error.input == input)
            #expect(error.description.contains(ServerNameError.quoted(input)))
            #expect(!error.description.contains("\u{1B}"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
