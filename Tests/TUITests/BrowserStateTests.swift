import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfTUI

/// The browser's state driven by actions alone: no screen, no shelf, no clock.
@Suite struct BrowserStateTests {
    static func loaded() -> BrowserState {
        var state = BrowserState()
        state.apply(.load(FakeShelf().items, select: nil, matches: nil))
        return state
    }

    /// Types `text` into the search field, key by key, with the fake shelf's matches.
    static func type(_ text: String, into state: inout BrowserState) {
        let shelf = FakeShelf()
        for character in text {
            var field = state.searchField
            _ = field.handle(.character(character))
            state.apply(.search(field, matches: shelf.search(field.text)))
        }
    }

    @Test func loadSelectsTheFirstDomainAndItsFirstAccount() {
        let state = Self.loaded()
        #expect(state.index.visible.count == 4)
        #expect(state.selectedDomain?.title == "bücher.example")
        #expect(state.selectedRecord?.account == "anna")
        #expect(state.pane == .domains)
    }

    @Test func movingTheDomainResetsTheAccountAndHidesThePassword() {
        var state = Self.loaded()
        state.apply(.focus(.accounts))
        state.apply(.move(.down, domainRows: 10, accountRows: 5))
        #expect(state.selectedRecord?.account == "bernd")
        state.apply(.reveal(state.selectedRecord!.id, Secret(utf8: "pw-bernd")))
        state.apply(.togglePane)
        state.apply(.move(.character("j"), domainRows: 10, accountRows: 5))
        #expect(state.selectedDomain?.title == "git.example.org:8443")
        #expect(state.selectedRecord?.account == "ci-bot")
        #expect(state.revealed == nil)
    }

    /// Found by a new user: after `e` changed a revealed password, the detail still showed the old one.
    @Test func aReloadHidesTheRevealedPasswordOnlyWhenItsRecordChanged() {
        var records = FakeShelf().items
        var state = BrowserState()
        state.apply(.load(records, select: nil, matches: nil))
        let anna = state.selectedRecord!.id
        state.apply(.reveal(anna, Secret(utf8: "pw-anna")))
        state.apply(.load(records, select: nil, matches: nil))
        #expect(state.revealed?.id == anna, "an unchanged record keeps its password shown")
        let position = records.firstIndex { $0.id == anna }!
        records[position].modificationDate = records[position].modificationDate.addingTimeInterval(60)
        state.apply(.load(records, select: nil, matches: nil))
        #expect(state.revealed == nil)
        #expect(state.selectedRecord?.id == anna)
    }

    @Test func aMoveThatGoesNowhereKeepsThePassword() {
        var state = Self.loaded()
        let anna = state.selectedRecord!.id
        state.apply(.reveal(anna, Secret(utf8: "pw-anna")))
        state.apply(.move(.up, domainRows: 10, accountRows: 5))
        #expect(state.revealed?.id == anna)
    }

    @Test func searchFiltersKeepsAndClearsKeepingTheSelection() {
        var state = Self.loaded()
        state.apply(.status("old message", error: true))
        state.apply(.beginSearch)
        #expect(state.searching && state.status.isEmpty && !state.statusIsError)
        Self.type("太郎", into: &state)
        #expect(state.index.visible.count == 1)
        #expect(state.selectedRecord?.account == "太郎")
        state.apply(.keepSearch)
        #expect(!state.searching && state.index.visible.count == 1)
        state.apply(.dismiss)
        #expect(state.index.visible.count == 4)
        #expect(state.selectedRecord?.account == "太郎")
        state.apply(.beginSearch)
        Self.type("zzz", into: &state)
        #expect(state.index.visible.isEmpty && state.selectedDomain == nil)
        state.apply(.clearSearch)
        #expect(!state.searching && state.index.visible.count == 4)
    }

    @Test func reloadKeepsTheSelectionByIdentityAndSelectsWhatIsNew() {
        var state = Self.loaded()
        state.apply(.move(.end, domainRows: 10, accountRows: 5))
        let taro = state.selectedRecord!.id
        var records = FakeShelf().items.filter { $0.account != "太郎" }
        records.append(state.index.records.first { $0.id == taro }!)
        state.apply(.load(records, select: nil, matches: nil))
        #expect(state.selectedRecord?.id == taro)
        let before = Set(records.map(\.id))
        let added = ShelfEntry(server: "new.example", account: "neu", store: .shared, comment: "")
        state.apply(.load(records + [added], select: nil, matches: nil))
        state.apply(.selectNew(since: before))
        #expect(state.selectedRecord?.id == added.id)
    }

    @Test func restoreClearsTheSearchAndSelectsTheRememberedPlace() {
        var state = Self.loaded()
        state.apply(.select(state.index.records.first { $0.account == "bernd" }!.id))
        state.apply(.focus(.accounts))
        let remembered = ShelfApp.Selection(domain: state.selectedDomain!.id, account: "bernd", store: .local, pane: .accounts)
        var fresh = Self.loaded()
        fresh.apply(.beginSearch)
        Self.type("mail", into: &fresh)
        fresh.apply(.restore(remembered))
        #expect(fresh.index.visible.count == 4)
        #expect(fresh.selectedRecord?.account == "bernd")
        #expect(fresh.pane == .accounts)
    }

    @Test func scrollKeepsTheSelectionInTheWindow() {
        var state = BrowserState()
        state.apply(.load((0..<30).map { ShelfEntry(server: "host\($0).example", account: "a", store: .shared, comment: "") }, select: nil, matches: nil))
        state.apply(.move(.end, domainRows: 10, accountRows: 5))
        state.apply(.scroll(domainRows: 10, accountRows: 5))
        #expect(state.domainList.selected == 29)
        #expect(state.domainList.top == 20)
    }
}
