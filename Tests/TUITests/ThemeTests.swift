import Foundation
import Testing
@testable import KeyshelfTUI

@Suite struct ThemeTests {
    @Test func parsesColoursBackgroundsAndAttributes() throws {
        let theme = try Theme.parse("""
        # comment
        selection = black on 39 bold
        error = bright-red underline   # trailing comment

        dim = 245
        """, name: "t")
        #expect(theme.style(for: .selection) == Style(foreground: .index(0), background: .index(39), attributes: [.bold]))
        #expect(theme.style(for: .error) == Style(foreground: .index(9), attributes: [.underline]))
        #expect(theme.style(for: .dim).foreground == .index(245))
        // Roles a file leaves out keep the monochrome attributes.
        #expect(theme.style(for: .buttonFocused) == Theme.monochrome.style(for: .buttonFocused))
    }

    @Test func errorsNameTheLine() {
        #expect(throws: ThemeError(source: "t", line: 2, reason: "unknown role \"nope\"")) {
            try Theme.parse("normal = default\nnope = red", name: "t")
        }
        #expect(throws: ThemeError.self) { try Theme.parse("normal = 256", name: "t") }
        #expect(throws: ThemeError.self) { try Theme.parse("normal = red on", name: "t") }
        #expect(throws: ThemeError.self) { try Theme.parse("normal = red blink", name: "t") }
        #expect(throws: ThemeError.self) { try Theme.parse("normal red", name: "t") }
    }

    @Test func shippedThemesParseAndCoverEveryRole() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("themes")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".theme") }
        #expect(files.count >= 5)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            _ = try Theme.parse(text, name: file)
            let roles = Set(text.split(separator: "\n").compactMap { $0.split(separator: "=").first?.trimmingCharacters(in: .whitespaces) })
            #expect(Role.allCases.allSatisfy { roles.contains($0.rawValue) }, "\(file) misses a role")
        }
        let dark = try Theme.load(named: "dark", searchPaths: [folder])
        #expect(dark == Theme.dark.renamed("dark"))
    }

    @Test func loadRefusesPathNames() {
        #expect(throws: ThemeError.self) { try Theme.load(named: "../etc/passwd", searchPaths: []) }
        #expect(throws: ThemeError.self) { try Theme.load(named: "missing", searchPaths: []) }
    }

    @Test func coloursDegradeTo16And8() {
        #expect(Color.index(196).degraded(toColors: 256) == .index(196))
        #expect(Color.index(196).degraded(toColors: 16) == .index(9))
        #expect(Color.index(196).degraded(toColors: 8) == .index(1))
        #expect(Color.index(12).degraded(toColors: 8) == .index(4))
        #expect(Color.index(236).degraded(toColors: 16) == .index(0))
        #expect(Color.terminalDefault.degraded(toColors: 8) == .terminalDefault)
        #expect(Color.index(245).degraded(toColors: 8) == .index(7), "grey must stay readable on a dark background")
    }

    @Test func configFileSettings() {
        let (config, problems) = TUIConfiguration.parse("theme = light\nauto-lock = 60\nclipboard-clear = x\nunknown = 1")
        #expect(config.theme == "light")
        #expect(config.autoLockSeconds == 60)
        #expect(config.clipboardClearSeconds == 45)
        #expect(problems.count == 1)
    }
}

extension Theme {
    func renamed(_ name: String) -> Theme { Theme(name: name, styles: styles) }
}

/// Where themes are looked up (issue 17 item 1): derived from the running
/// binary and the environment, never from a path compiled in.
@Suite struct ThemeLocationTests {
    @Test func anInstalledBinaryLooksBesideItselfThenXDGDataDirsThenTheConfigFolder() {
        let paths = Theme.searchPaths(environment: ["XDG_DATA_DIRS": "/usr/share:relative:/opt/share", "XDG_CONFIG_HOME": "/home/u/.config"],
                                      executable: URL(fileURLWithPath: "/opt/ks/bin/keyshelf")).map(\.path)
        #expect(paths == ["/opt/ks/share/keyshelf/themes", "/usr/share/keyshelf/themes", "/opt/share/keyshelf/themes",
                          "/home/u/.config/keyshelf/themes"])
    }

    @Test func keyshelfThemesComesFirstAndXDGDataDirsHasADefault() {
        let paths = Theme.searchPaths(environment: ["KEYSHELF_THEMES": "/mine", "HOME": "/home/u"], executable: nil).map(\.path)
        #expect(paths == ["/mine", "/usr/local/share/keyshelf/themes", "/usr/share/keyshelf/themes", "/home/u/.config/keyshelf/themes"])
    }

    /// `scripts/keyshelf`, `swift run` and the tests run the binary from
    /// `.build`: the checkout's `themes/` beside `.build` is found.
    @Test func aBinaryInsideDotBuildFindsTheCheckoutsThemes() {
        let paths = Theme.searchPaths(environment: ["HOME": "/h"],
                                      executable: URL(fileURLWithPath: "/src/ks/.build/x86_64-unknown-linux-gnu/release/keyshelf")).map(\.path)
        #expect(paths.prefix(2) == ["/src/ks/.build/x86_64-unknown-linux-gnu/share/keyshelf/themes", "/src/ks/themes"])
    }

    /// The source file's own location is no longer a search path.
    @Test func noPathComesFromTheSourceTree() {
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let paths = Theme.searchPaths(environment: ["HOME": "/h"], executable: URL(fileURLWithPath: "/opt/ks/bin/keyshelf"))
        #expect(!paths.contains { $0.path.hasPrefix(checkout) })
    }

    @Test func namesListsValidThemeFilesAndTheBuiltIns() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-themes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for file in ["mine.theme", "bad name.theme", "notes.txt"] { try Data().write(to: folder.appendingPathComponent(file)) }
        #expect(Theme.names(searchPaths: [folder]) == ["dark", "mine", "monochrome"])
    }
}
