import Foundation
import KeyshelfClipboard
import KeyshelfCrypto
import KeyshelfVault

/// The unlocked browser: two panes, detail area, search, and the actions of DESIGN §7.
///
/// Runs modal dialogs and forms as nested key loops on the same `Screen`, so
/// a consent question asked by the domain layer in the middle of an action
/// is answered right there (`UserPrompts`).
public final class ShelfApp {
    /// Why `run` returned.
    public enum Exit: Equatable {
        /// `q`, Ctrl-C or the input ended.
        case quit
        /// `X` or the idle timer: the caller shows the unlock screen again.
        case locked
    }

    typealias Pane = BrowserState.Pane

    let screen: Screen
    let shelf: Shelf
    let configuration: TUIConfiguration
    let clipboard: Clipboard
    let now: () -> Date
    /// Selection, search, focus, status and the revealed password (`BrowserState.apply`).
    var state = BrowserState()
    var lastActivity: Date
    var lockRequested = false
    var quitRequested = false
    /// The first line of the screen, e.g. "keyshelf — demo vault".
    public var title: String
    /// The audit findings of the records (the `S` view), and their ids for the badges.
    var findings: [ShelfFinding] = []
    var findingIDs: Set<UUID> = []
    /// The shelf's `auditGeneration` when `findings` were read.
    var findingsGeneration = 0
    /// The one-time codes: badges, the code on show, a copy waiting for the next code.
    var oneTime = OneTimeCodeDisplay()
    /// The status of the last copy that will be cleared, and what to say once it is (`noteClipboardCleared`).
    var copyStatus: (shown: String, cleared: String)?

    /// - Parameters:
    ///   - clock: the time source for the idle lock and the clipboard timer (tests pass their own).
    public init(screen: Screen, shelf: Shelf, configuration: TUIConfiguration = TUIConfiguration(),
                title: String = "keyshelf", clipboard: Clipboard? = nil, clock: @escaping () -> Date = Date.init) {
        self.screen = screen
        self.shelf = shelf
        self.configuration = configuration
        self.title = title
        self.clipboard = clipboard ?? Clipboard(clearAfter: configuration.clipboardClearSeconds, writeTerminal: Clipboard.standardOutputWriter)
        now = clock
        lastActivity = clock()
        reload()
    }

    /// Reads the records again from the shelf, keeping the selection where it can
    /// (or moving it to the record `id`).
    func reload(select id: UUID? = nil) {
        do {
            let records = try shelf.records()
            state.apply(.load(records, select: id, matches: matches(of: state.searchField.text)))
            reloadFindings()
            reloadOneTimeCodes()
        } catch {
            setStatus("\(error)", error: true)
            state.apply(.load([], select: id, matches: nil))
        }
    }

    /// The records matching the search text `text` (`Shelf.search`), nil for no text.
    func matches(of text: String) -> [Int]? {
        text.isEmpty ? nil : shelf.search(text)
    }

    /// Reads the records again and selects the first one whose id is not in
    /// `before` (what an add or an import saved), if there is one.
    func reload(selectingNewSince before: Set<UUID>) {
        reload()
        state.apply(.selectNew(since: before))
    }

    /// The records grouped by domain and filtered by the search.
    var index: DomainIndex { state.index }
    /// The status line's message and whether it is an error.
    var status: String { state.status }
    var statusIsError: Bool { state.statusIsError }
    var selectedDomain: DomainIndex.Domain? { state.selectedDomain }
    var selectedRecord: ShelfEntry? { state.selectedRecord }

    func setStatus(_ message: String, error: Bool = false) {
        state.apply(.status(message, error: error))
    }

    /// Runs until the user quits or the vault locks.
    public func run() -> Exit {
        draw()
        while true {
            if quitRequested { return .quit }
            if lockRequested {
                shelf.lock()
                state.apply(.hidePassword)
                clipboard.clearNow()
                screen.clear()
                screen.refresh()
                return .locked
            }
            let status = state.status
            let key = nextKey()
            // Each key and each timer tick: show what other processes changed (issue 13 rule 7),
            // and a status the timer changed (the clipboard was cleared).
            let changed = pickUpOutsideChanges() || adoptBackgroundAudit() || state.status != status
            guard let key else {
                // Only what changed reaches the terminal: curses sends the difference.
                if oneTimeCodeTick() || changed { draw() }
                continue
            }
            if key == .closed { return .quit }
            handle(key)
            _ = oneTimeCodeTick()
            // A modal that saw the input end asked to quit: keep its last frame on screen.
            if quitRequested { return .quit }
            draw()
        }
    }

    /// Once the last copy was cleared, its status line ("…; cleared in 45 s
    /// unless replaced"), when still on show, says so instead.
    func noteClipboardCleared() {
        guard let copy = copyStatus, !clipboard.isWaitingToClear else { return }
        copyStatus = nil
        if state.status == copy.shown { setStatus(copy.cleared) }
    }

    /// Shows where a copy of `what` (e.g. "the password of anna") went, and
    /// remembers a copy that will be cleared for `noteClipboardCleared`.
    func showCopy(_ report: CopyReport, of what: String) {
        let message = report.message(what)
        setStatus(message, error: !report.copied)
        copyStatus = report.clearAfter == nil ? nil : (message, report.clearedMessage(what))
    }

    /// The next key, or nil after a timeout (when the idle lock and the clipboard timer are checked).
    func nextKey() -> Key? {
        let key = screen.readKey(timeout: 1)
        clipboard.tick(now: now())
        noteClipboardCleared()
        guard let key else {
            if configuration.autoLockSeconds > 0, now().timeIntervalSince(lastActivity) >= configuration.autoLockSeconds {
                lockRequested = true
            }
            return nil
        }
        lastActivity = now()
        return key
    }
}
