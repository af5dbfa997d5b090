import Foundation
import KeyshelfCredentials
import KeyshelfTUI
import Testing
@testable import KeyshelfCLI

/// One rule for hostile text on every output path (DESIGN §7): a domain
/// message, the CLI's `InertText` and the TUI's `TerminalText.sanitize` all
/// keep the same scalars away from the terminal, and leave the same text alone.
@Suite struct InertTextTests {
    static let hostile: [Unicode.Scalar] = [
        0x00, 0x07, 0x09, 0x0A, 0x0D, 0x1B, 0x7F, 0x85, 0x9B, 0x9F,
        0xAD, 0x34F, 0x61C, 0x115F, 0x180E, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F,
        0x2028, 0x2029, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
        0x2060, 0x2061, 0x2066, 0x2067, 0x2068, 0x2069, 0x3164,
        0xFDD0, 0xFDEF, 0xFE00, 0xFE0F, 0xFEFF, 0xFFF9, 0xFFFA, 0xFFFB, 0xFFFE, 0xFFFF,
        0x1FFFE, 0xE0000, 0xE0001, 0xE0041, 0xE007F, 0xE0100, 0x10FFFF,
        // Blanks that list like nothing or like a space (issue 11, item 24).
        0xA0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A,
        0x202F, 0x205F, 0x3000, 0x2800,
    ].map { Unicode.Scalar(UInt32($0))! }

    /// Each path, given `text`, returns what reaches the terminal.
    static let paths: [(name: String, render: @Sendable (String) -> String)] = [
        ("domain message", { ConsentRequest.update(server: ServerName(host: "example.com", port: 0), account: $0).message }),
        ("server name error", { ServerNameError(input: $0, reason: "is refused").description }),
        ("CLI", { InertText.make($0) }),
        ("TUI", { TerminalText.sanitize($0) }),
    ]

    @Test(arguments: hostile)
    func aHostileScalarNeverReachesTheTerminalRaw(scalar: Unicode.Scalar) {
        let text = "alice" + String(scalar) + "x"
        #expect(InertScalars.isUnsafe(scalar))
        for path in Self.paths {
            let shown = path.render(text)
            #expect(!shown.unicodeScalars.contains(scalar), "\(path.name): \(shown.debugDescription)")
            #expect(shown.contains("alice"), "\(path.name): \(shown.debugDescription)")
            #expect(path.render(text) != path.render("alicex"), "\(path.name) hides U+\(String(scalar.value, radix: 16))")
        }
        let hex = String(scalar.value, radix: 16, uppercase: true)
        #expect(InertText.make(text) == "alice\\u{\(hex)}x")
        #expect(ConsentRequest.update(server: ServerName(host: "example.com", port: 0), account: text).message
            .contains("\"alice\\u{\(hex)}x\""))
        let symbol = scalar.value < 0x20 ? String(Unicode.Scalar(0x2400 + scalar.value)!) : scalar.value == 0x7F ? "␡" : "\u{FFFD}"
        #expect(TerminalText.sanitize(text) == "alice" + symbol + "x")
    }

    @Test(arguments: ["bücher.example", "日本語", "e\u{301}", "👍", "👩‍💻", "👩🏽‍💻", "❤️", "1️⃣", "#️⃣", "🏳️‍🌈", "葛\u{E0100}",
                        "Vie\u{302}\u{303}t", "\u{5E9}\u{5C1}\u{5B8}\u{591}", "a\u{301}\u{302}\u{303}\u{304}", "a b"])
    func ordinaryTextAndEmojiSequencesAreLeftAlone(text: String) {
        #expect(InertScalars.isInert(text))
        #expect(InertText.make(text) == text)
        #expect(TerminalText.sanitize(text) == text)
        #expect(ConsentRequest.update(server: ServerName(host: "example.com", port: 0), account: text).message.contains("\"\(text)\""))
    }

    /// The emoji exceptions hold only inside a sequence: a joiner or a
    /// variation selector after a letter is escaped.
    @Test func joinersAndSelectorsOutsideEmojiAreEscaped() {
        #expect(InertText.make("a\u{200D}b") == "a\\u{200D}b")
        #expect(InertText.make("👍\u{200D}") == "👍\\u{200D}")
        #expect(InertText.make("1\u{FE0F}") == "1\\u{FE0F}")
        #expect(InertText.make("a\u{E0100}") == "a\\u{E0100}")
        #expect(InertText.quoted("a\"b\\c\u{202E}") == #""a\"b\\c\u{202E}""#)
    }

    /// A base keeps `maxStackedMarks` combining marks; every later one in the row is escaped.
    @Test func stackedCombiningMarksPastTheCapAreEscaped() {
        let marks = (0..<20).map { _ in "\u{301}" }.joined()
        let text = "a" + marks + "b\u{300}"
        let kept = "a" + String(repeating: "\u{301}", count: InertScalars.maxStackedMarks)
        #expect(!InertScalars.isInert(text))
        #expect(InertText.make(text) == kept + String(repeating: "\\u{301}", count: 16) + "b\u{300}")
        #expect(TerminalText.sanitize(text) == kept + String(repeating: "\u{FFFD}", count: 16) + "b\u{300}")
        #expect(InertText.make("e\u{20DD}\u{20DD}\u{20DD}\u{20DD}\u{20DD}") == "e\u{20DD}\u{20DD}\u{20DD}\u{20DD}\\u{20DD}")
    }

    @Test func listShowsReorderingAndInvisibleCharactersEscaped() throws {
        let vault = try TestVault()
        try vault.add("acct.example", "\u{202E}evil", password: "p1")
        try vault.add("acct.example", "alice", password: "p2")
        try vault.add("acct.example", "alice\u{200B}", password: "p3")
        try vault.add("acct.example", "alice\u{2800}", password: "p4")
        try vault.add("acct.example", "al\u{A0}ice", password: "p5")
        let list = try vault.run(["list"])
        #expect(list.status == 0, "\(list)")
        for raw: Unicode.Scalar in ["\u{202E}", "\u{200B}", "\u{2800}", "\u{A0}"] {
            #expect(!list.stdout.unicodeScalars.contains(raw), "\(list)")
        }
        let accounts = list.lines.map { $0.split(separator: "\t").map(String.init)[1] }
        #expect(Set(accounts) == ["\\u{202E}evil", "alice", "alice\\u{200B}", "alice\\u{2800}", "al\\u{A0}ice"], "\(list)")
        #expect(accounts.count == 5)
        let json = try vault.run(["list", "--json"])
        #expect(json.stdout.contains("\"alice\u{2800}\""), "JSON stays exact: \(json)")
    }
}
