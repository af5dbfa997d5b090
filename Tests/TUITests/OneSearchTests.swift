import Foundation
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTUI

/// Issue 12 item 4: `/` in the TUI and `keyshelf search` (the facade's
/// `Keyshelf.search`) match the same fields, so they find the same credentials.
@Suite struct OneSearchTests {
    func vault() throws -> MemoryVault {
        let vault = MemoryVault()
        let keyshelf = try Keyshelf(vault: vault, consent: ApproveAll())
        try keyshelf.add(server: ServerName(parsing: "bücher.example"), account: "anna", password: Secret(utf8: "pw-anna"), to: .shared,
                         comment: "order history since 2019")
        try keyshelf.add(server: ServerName(parsing: "bücher.example"), account: "bernd", password: Secret(utf8: "pw-bernd"), to: .local)
        try keyshelf.add(server: ServerName(parsing: "git.example.org:8443"), account: "ci-bot", password: Secret(utf8: "pw-ci"), to: .shared)
        try keyshelf.edit(server: ServerPattern(parsing: "git.example.org:8443"), account: "ci-bot", MetadataChanges(label: "Build Farm Token"))
        try keyshelf.add(server: ServerName(parsing: "mail.example.com"), account: "me", password: Secret(utf8: "pw-me"), to: .shared)
        return vault
    }

    /// The accounts the browser shows for `query`: every visible domain's shown accounts, by id.
    func shownByTheTUI(_ query: String, in vault: MemoryVault) throws -> Set<UUID> {
        let screen = RecordingScreen(rows: 30, columns: 100)
        screen.pendingKeys = [Key.character("/")] + query.map { Key.character($0) }
        let app = ShelfApp(screen: screen, shelf: try KeyshelfShelf(vault: vault), clipboard: recordingClipboard().0)
        _ = app.run()
        let index = app.index
        return Set(index.visible.indices.flatMap { index.accounts(ofVisible: $0) }.map { index.records[$0].id })
    }

    @Test(arguments: ["HISTORY", "farm", "8443", "xn--bcher-kva", "bücher", "bernd", "example", "zzz"])
    func theTUIShowsWhatKeyshelfSearchFinds(query: String) throws {
        let vault = try vault()
        let cli = Set(try Keyshelf(vault: vault).search(query).map(\.id))
        #expect(try shownByTheTUI(query, in: vault) == cli, "\(query)")
    }

    @Test func aNoteOrLabelMatchShowsOnlyThatAccount() throws {
        let vault = try vault()
        let notes = try shownByTheTUI("history", in: vault)
        #expect(notes.count == 1)
        let label = try shownByTheTUI("build farm", in: vault)
        #expect(label.count == 1)
        #expect(Set(try Keyshelf(vault: vault).search("build farm").map(\.account)) == ["ci-bot"])
    }

    @Test func genericPasswordsMatchOnTheirServiceAndAccount() throws {
        let vault = try vault()
        _ = try Keyshelf(vault: vault, consent: ApproveAll()).addGeneric(service: "backup-tool", account: "robot", password: Secret(utf8: "pw"))
        let shown = try shownByTheTUI("backup", in: vault)
        #expect(shown.count == 1)
    }

    /// The generic passwords `/` shows are the facade's `searchGenerics`, as `keyshelf search` prints them.
    @Test(arguments: ["backup", "ROBOT", "nightly", "may", "example", "pw-robot", "zzz"])
    func theTUIShowsTheGenericPasswordsKeyshelfSearchFinds(query: String) throws {
        let vault = try vault()
        _ = try Keyshelf(vault: vault, consent: ApproveAll()).addGeneric(service: "backup-tool", account: "robot", password: Secret(utf8: "pw-robot"),
                                                                         label: "Nightly", comment: "rotate in May")
        _ = try Keyshelf(vault: vault, consent: ApproveAll()).addGeneric(service: "api.example", account: "ci", password: Secret(utf8: "tok"))
        let keyshelf = try Keyshelf(vault: vault)
        let cli = Set(keyshelf.search(query).map(\.id)).union(keyshelf.searchGenerics(query).map(\.id))
        #expect(try shownByTheTUI(query, in: vault) == cli, "\(query)")
    }
}
