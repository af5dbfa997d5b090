import Foundation
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTUI

/// The browser over the real domain facade (`KeyshelfShelf` on a `MemoryVault`):
/// the consent rules are the domain's, the dialogs are the TUI's.
@Suite struct DomainShelfTests {
    func vault() throws -> MemoryVault {
        let vault = MemoryVault()
        let keyshelf = try Keyshelf(vault: vault, consent: ApproveAll())
        try keyshelf.add(server: ServerName(parsing: "bücher.example"), account: "anna", password: Secret(utf8: "pw-anna"), to: .shared)
        try keyshelf.add(server: ServerName(parsing: "git.example.org:8443"), account: "deploy", password: Secret(utf8: "pw-deploy"),
                         to: .local, accessControl: .userPresence)
        return vault
    }

    func run(_ vault: MemoryVault, _ keys: [Key?], rows: Int = 30, columns: Int = 100) throws -> RecordingScreen {
        let screen = RecordingScreen(rows: rows, columns: columns)
        screen.keepsFrames = true
        screen.pendingKeys = keys
        let (clipboard, _) = recordingClipboard()
        _ = ShelfApp(screen: screen, shelf: try KeyshelfShelf(vault: vault), clipboard: clipboard).run()
        return screen
    }

    func accounts(_ vault: MemoryVault) throws -> [String] {
        try Keyshelf(vault: vault).entries().map(\.account).sorted()
    }

    @Test func showsUnicodeServersAndPortsFromTheFacade() throws {
        let screen = try run(try vault(), [])
        #expect(screen.text.contains("bücher.example"))
        #expect(screen.text.contains("git.example.org:8443"))
    }

    /// Issue 12 item 4: a domain is its server by value, scheme and port included,
    /// never its title; `L` logs in to that server (an http domain stays http).
    @Test func httpAndHttpsServersOfOneHostAreThreeDomainsAndLoginKeepsTheScheme() throws {
        let vault = MemoryVault()
        let keyshelf = try Keyshelf(vault: vault, consent: ApproveAll())
        for (server, account) in [("http://example.com", "plain"), ("http://example.com:8443", "plain-alt"),
                                  ("https://example.com:8443", "tls-alt")] {
            try keyshelf.add(server: ServerName(parsing: server), account: account, password: Secret(utf8: "pw-\(account)"), to: .local)
        }
        let browser = try run(vault, [])
        #expect(browser.text.contains("3/3 domains"), "\(browser.text)")
        for title in ["│ http://example.com ", "│ http://example.com:8443", "│ example.com:8443"] {
            #expect(browser.text.contains(title), "\(browser.text)")
        }
        let order = try Keyshelf(vault: vault).domains().map(\.server.qualified)
        let http = try #require(order.firstIndex(of: "http://example.com"), "\(order)")
        let login = try run(vault, Array(repeating: Key.character("j"), count: http) + [.character("L")])
        #expect(login.text.contains("Login for http://example.com: use plain (c copies"), "\(login.text)")
    }

    @Test func deleteGoesThroughTheDomainConsentDialog() throws {
        let declined = try vault()
        let screen = try run(declined, [.tab, .character("d")])
        #expect(screen.text.contains("Delete Saved Password?"))
        #expect(screen.text.contains("Remove the saved password for"))
        #expect(screen.text.contains("\"anna\""))
        #expect(try accounts(declined) == ["anna", "deploy"])

        let fresh = try vault()
        _ = try run(fresh, [.tab, .character("d"), .enter])
        #expect(try accounts(fresh) == ["anna", "deploy"])

        let accepted = try vault()
        _ = try run(accepted, [.tab, .character("d"), .tab, .enter])
        #expect(try accounts(accepted) == ["deploy"])
    }

    @Test func invalidServerIsShownInTheFormAndNothingIsSaved() throws {
        let vault = try vault()
        let keys: [Key?] = [.character("a"), .backTab, .control("u")] + "exa mple".map { Key.character($0) }
            + [.tab] + "bob".map { Key.character($0) } + [.tab, .character("p"), .control("s")]
        let screen = try run(vault, keys)
        #expect(screen.text.contains("invalid server name \"exa mple\""))
        #expect(try accounts(vault) == ["anna", "deploy"])
    }

    @Test func addSavesThroughTheFacadeWithTheServerNormalised() throws {
        let vault = try vault()
        let keys: [Key?] = [.character("a"), .backTab, .control("u")] + "https://MÜNCHEN.example:443/x".map { Key.character($0) }
            + [.tab] + "max".map { Key.character($0) } + [.tab, .character("p"), .control("s")]
        let screen = try run(vault, keys)
        let added = try #require(try Keyshelf(vault: vault).entries().first { $0.account == "max" })
        #expect(added.server.host == "xn--mnchen-3ya.example")
        #expect(screen.text.contains("münchen.example"))
        #expect(screen.text.contains("Saved max for münchen.example."), "the status names the server as the lists do: \(screen.text)")
        #expect(!screen.text.contains("MÜNCHEN"))
    }

    /// The add form has the edit form's fields in its order, Label included:
    /// Server, Account, Password, Label, Store, Notes; add saves the label.
    @Test func theAddFormHasTheEditFormsFieldsAndSavesTheLabel() throws {
        let vault = try vault()
        func typed(_ text: String) -> [Key?] { text.map { Key.character($0) } }
        // Focus starts on Account: the server field holds the selected domain.
        let keys: [Key?] = [.character("a")] + typed("max") + [.tab] + typed("pw-max") + [.tab] + typed("Work")
            + [.tab, .character(" "), .tab] + typed("hello") + [.control("s")]
        let screen = try run(vault, keys)
        let keyshelf = try Keyshelf(vault: vault)
        let added = try #require(keyshelf.entries().first { $0.account == "max" })
        #expect(added.label == "Work")
        #expect(added.store == .local)
        #expect(added.comment == "hello")
        #expect(added.server.qualified == "bücher.example")
        #expect(try keyshelf.reveal(added).unsafeString() == "pw-max")
        #expect(screen.text.contains("Saved max for bücher.example."))

        let order = ["Server", "Account", "Password", "Label", "Store", "Notes"]
        let addForm = try run(vault, [.character("a")])
        let editForm = try run(vault, [.tab, .character("e")])
        for (screen, title) in [(addForm, "Add Credential"), (editForm, "Edit anna")] {
            let lines = screen.lines.drop { !$0.contains(title) }
            let labels = lines.compactMap { line in order.first { line.contains("│ \($0) ") } }
            #expect(labels == order, "\(title): \(screen.text)")
        }
    }

    @Test func revealOfAUserPresenceItemAsksTheMasterPassword() throws {
        let vault = try vault()
        let wrong = try run(vault, [.character("j"), .tab, .character("r")] + "nope".map { Key.character($0) } + [.enter])
        #expect(!wrong.text.contains("pw-deploy"))
        #expect(wrong.text.contains("errSecAuthFailed"))
        let right = try run(vault, [.character("j"), .tab, .character("r")] + "correct horse".map { Key.character($0) } + [.enter])
        #expect(right.text.contains("pw-deploy"))
    }

    /// A vault that counts master-password checks (each one is an Argon2id run on a real vault).
    final class CountingVault: CredentialVault {
        let base: MemoryVault
        var checks = 0
        init(_ base: MemoryVault) { self.base = base }
        func loadItems() throws -> StoredItems { try base.loadItems() }
        func modifyItems<T>(_ body: (inout StoredItems) throws -> T) throws -> T { try base.modifyItems(body) }
        var revision: Int { base.revision }
        func verifyPassword(_ password: Secret) -> Bool {
            checks += 1
            return base.verifyPassword(password)
        }
        func changeMasterPassword(from current: Secret, to newPassword: Secret) throws {
            try base.changeMasterPassword(from: current, to: newPassword)
        }
    }

    @Test func aWrongMasterPasswordCanBeRetriedAndEachTryIsCheckedOnce() throws {
        let vault = CountingVault(try vault())
        let screen = RecordingScreen()
        screen.keepsFrames = true
        screen.pendingKeys = [.character("j"), .tab, .character("r")] + "nope".map { Key.character($0) } + [.enter]
            + "correct horse".map { Key.character($0) } + [.enter]
        let (clipboard, _) = recordingClipboard()
        _ = ShelfApp(screen: screen, shelf: try KeyshelfShelf(vault: vault), clipboard: clipboard).run()
        #expect(screen.frames.contains { $0.contains("Wrong master password (errSecAuthFailed -25293); try again") })
        #expect(screen.text.contains("pw-deploy"))
        #expect(vault.checks == 2, "the facade's check of the accepted password is not a second Argon2id run")
    }

    @Test func threeWrongMasterPasswordsEndWithTheAuthFailedStatus() throws {
        let wrong = "nope".map { Key.character($0) } + [.enter]
        let screen = try run(try vault(), [.character("j"), .tab, .character("r")] + wrong + wrong + wrong)
        #expect(!screen.text.contains("Master Password"))
        #expect(!screen.text.contains("pw-deploy"))
        #expect(screen.text.contains("errSecAuthFailed"))
    }

    @Test func theMasterPasswordPromptNamesTheActionInFullWithItsOwnKeys() throws {
        let vault = try vault()
        // Input ends while the prompt is open (a cancel): the frames show it on a 60-column screen.
        for (keys, action) in [([Key.character("r")], "show"), ([.character("c")], "copy"), ([], "")] {
            let screen = try run(vault, [.character("j"), .tab] + keys, rows: 16, columns: 60)
            guard !keys.isEmpty else { continue }
            let prompt = try #require(screen.frames.last { $0.contains("Master Password") })
            let text = prompt.split(separator: "\n").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "│ ")) }.joined(separator: " ")
            #expect(text.contains("Type the master password to \(action) the password for \"deploy\" on git.example.org:8443."))
            #expect(prompt.contains("Enter confirm · Esc cancel"))
            #expect(!prompt.contains("Ctrl-G"))
        }
        let login = try run(vault, [.character("j"), .character("L")], rows: 16, columns: 60)
        let prompt = try #require(login.frames.last { $0.contains("Master Password") })
        let text = prompt.split(separator: "\n").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "│ ")) }.joined(separator: " ")
        #expect(text.contains("to use the password for \"deploy\" on git.example.org:8443."))
    }

    @Test func aDeclinedDeleteShowsTheStatusCutWithAnEllipsis() throws {
        let screen = try run(try vault(), [.tab, .character("d"), .escape], rows: 16, columns: 60)
        let status = screen.lines[14]
        #expect(status.contains("Canceled"))
        #expect(status.hasSuffix("…"))
    }

    @Test func updatingAPasswordAsksConsentAndDecliningKeepsIt() throws {
        let vault = try vault()
        _ = try run(vault, [.tab, .character("e"), .tab, .character("x"), .control("s"), .escape])
        let entry = try #require(try Keyshelf(vault: vault).entries().first { $0.account == "anna" })
        #expect(try Keyshelf(vault: vault).reveal(entry).unsafeString() == "pw-anna")
        _ = try run(vault, [.tab, .character("e"), .tab, .character("x"), .control("s"), .tab, .enter])
        let updated = try #require(try Keyshelf(vault: vault).entries().first { $0.account == "anna" })
        #expect(try Keyshelf(vault: vault).reveal(updated).unsafeString() == "x")
    }

    /// Declining "Update Saved Password?" refuses the new password only: the
    /// notes and label typed in the same form are saved, and the status says so.
    @Test func decliningThePasswordUpdateKeepsTheFormsOtherEdits() throws {
        let vault = try vault()
        let notes: [Key?] = [.control("u")] + "new notes".map { Key.character($0) }
        let label: [Key?] = "Books".map { Key.character($0) }
        let screen = try run(vault, [.tab, .character("e"), .tab, .character("x"), .tab] + label + [.tab, .tab] + notes
                             + [.control("s"), .escape])
        #expect(screen.frames.contains { $0.contains("Update Saved Password?") })
        let keyshelf = try Keyshelf(vault: vault)
        let entry = try #require(keyshelf.entries().first { $0.account == "anna" })
        #expect(try keyshelf.reveal(entry).unsafeString() == "pw-anna")
        #expect(entry.comment == "new notes")
        #expect(entry.label == "Books")
        #expect(screen.text.contains("kept the saved password"), "\(screen.text)")

        // With nothing else changed, declining changes nothing and says so.
        let unchanged = try run(vault, [.tab, .character("e"), .tab, .character("x"), .control("s"), .escape])
        #expect(unchanged.text.contains("Canceled"), "\(unchanged.text)")
    }

    @Test func loginUsesTheLocalStoreFirstAndAsksBeforeReleasingShared() throws {
        let vault = try vault()
        let local = try run(vault, [.character("j"), .character("L")] + "correct horse".map { Key.character($0) } + [.enter])
        #expect(local.text.contains("Login for git.example.org:8443: use deploy"))

        // Declining the release goes on to the prompt (step 3), which saves nothing when canceled.
        let declined = try run(vault, [.character("L"), .escape, .escape])
        let dialog = try #require(declined.frames.first { $0.contains("Use Saved Password for bücher.example?") })
        #expect(dialog.contains("[ Not Now ]  [ anna ]"))
        #expect(declined.frames.contains { $0.contains("Log in to bücher.example") })
        #expect(declined.text.contains("Canceled"))
        #expect(try accounts(vault) == ["anna", "deploy"])

        let chosen = try run(vault, [.character("L"), .tab, .enter])
        #expect(chosen.text.contains("Login for bücher.example: use anna"))
    }
}
