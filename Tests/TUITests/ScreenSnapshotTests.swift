import Foundation
import KeyshelfTestSupport
import Testing

/// The captures in docs/screens/ are checked snapshots: each test drives
/// `keyshelf demo` in tmux to the scene its file shows and compares the
/// screen in full (`ScreenSnapshot`). `KEYSHELF_RECORD_SNAPSHOTS=1` rewrites
/// the files instead; check the difference by eye before committing it.
@Suite(.serialized) struct ScreenSnapshotTests {
    /// The demo's title bar and its domains, once the first frame is drawn.
    static let ready = "10/10 domains"

    /// A generated password (`xxx-xxx-xxx-xxx`) differs on every run.
    static let generatedPassword = ScreenSnapshot.Variable(#"\b[A-Za-z0-9]{3}-[A-Za-z0-9]{3}-[A-Za-z0-9]{3}-[A-Za-z0-9]{3}\b"#, "xxx-xxx-xxx-xxx")

    /// Starts the demo in a 100×30 window with `example.com` (the third domain) selected.
    func demoOnExampleCom() throws -> TmuxSession {
        let tmux = try TmuxSession()
        try tmux.startDemo()
        try tmux.waitFor(Self.ready)
        try tmux.send("Down", "Down")
        try tmux.waitFor("Accounts of example.com")
        return tmux
    }

    func expectMatches(_ snapshot: ScreenSnapshot, _ capture: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let mismatch = try snapshot.mismatch(capture)
        #expect(mismatch == nil, "\(mismatch ?? "")", sourceLocation: sourceLocation)
    }

    @Test func browse() throws {
        let tmux = try demoOnExampleCom()
        let screen = try tmux.waitFor { $0.contains("Account   José") && $0.contains("Notes     Account name") }
        try expectMatches(ScreenSnapshot("docs/screens/browse.txt"), screen)
    }

    @Test func consent() throws {
        let tmux = try demoOnExampleCom()
        try tmux.waitFor("Account   José")
        try tmux.send("d")
        let screen = try tmux.waitFor { $0.contains("[ Cancel ]  [ Delete ]") }
        try expectMatches(ScreenSnapshot("docs/screens/consent.txt"), screen)
    }

    @Test func searchAndGenerator() throws {
        let tmux = try TmuxSession()
        try tmux.startDemo()
        try tmux.waitFor(Self.ready)
        try tmux.send("/")
        try tmux.type("git")
        try tmux.waitFor("Accounts of git.example.org:8443")
        try tmux.send("Enter")
        try tmux.send("g")
        let screen = try tmux.waitFor { $0.contains("Generated Password") && $0.contains("[ Use ]") }
        try expectMatches(ScreenSnapshot("docs/screens/search-generator.txt", variables: [.dateTime, Self.generatedPassword]), screen)
    }

    /// The comparison is of the whole screen: one changed cell fails, a new time does not.
    @Test func aSnapshotComparesEveryLineButNotTheTime() {
        let snapshot = ScreenSnapshot("docs/screens/none.txt")
        let screen = " Created   2026-11-29 16:25\n a b c   \n"
        #expect(snapshot.normalised(screen) == snapshot.normalised(" Created   2027-01-02 03:04\n a b c\n"))
        #expect(snapshot.normalised(screen) != snapshot.normalised(" Created   2026-11-29 16:25\n a b d\n"))
        #expect(snapshot.normalised(screen) != snapshot.normalised(" Created   2026-11-29 16:25\n a b c\n extra\n"))
    }
}
