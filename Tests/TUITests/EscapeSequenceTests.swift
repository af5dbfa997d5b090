import Testing
@testable import KeyshelfTUI

@Suite struct EscapeSequenceTests {
    private func scalars(_ text: String) -> [UInt32] { text.unicodeScalars.map(\.value) }

    @Test(arguments: [("[1~", Key.home), ("[7~", .home), ("[4~", .end), ("[8~", .end), ("OH", .home), ("[3~", .delete), ("[Z", .backTab)])
    func homeEndAndFriendsFromOtherTerminalsAreKeys(tail: String, key: Key) {
        #expect(EscapeSequence.isComplete(scalars(tail)))
        #expect(EscapeSequence.key(for: scalars(tail)) == key)
    }

    @Test func unknownSequencesAndAltKeysAreIgnoredNotEscape() {
        for tail in ["[200~", "[1;5P", "b", "O", "[15;2~"] where EscapeSequence.isComplete(scalars(tail)) {
            #expect(EscapeSequence.key(for: scalars(tail)) == .other(0))
        }
        #expect(EscapeSequence.key(for: scalars("b")) != .escape)
    }

    @Test func aSequenceIsReadUntilItsFinalByte() {
        #expect(!EscapeSequence.isComplete([]))
        #expect(!EscapeSequence.isComplete(scalars("[")))
        #expect(!EscapeSequence.isComplete(scalars("[1")))
        #expect(EscapeSequence.isComplete(scalars("[1~")))
        #expect(!EscapeSequence.isComplete(scalars("O")))
        #expect(EscapeSequence.isComplete(scalars("OP")))
    }
}
