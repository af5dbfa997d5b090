import KeyshelfCredentials
import Synchronization

/// The consent policy of a run with no terminal and no `--yes` (DESIGN §5):
/// every request is declined, as `DeclineAll` does, and the decline is
/// remembered so the error report can say that `--yes` approves
/// non-interactively.
final class UnattendedConsent: Consent {
    private let declinedCount = Atomic<Int>(0)

    func ask(_ request: ConsentRequest) -> ConsentAnswer {
        recordDecline()
        return .declined
    }

    var answersWithoutWaiting: Bool { true }

    /// Records a decline the command made itself (e.g. `export`'s confirmation).
    func recordDecline() {
        declinedCount.add(1, ordering: .relaxed)
    }

    /// True once any request of this run was declined for lack of a terminal.
    var declinedAny: Bool { declinedCount.load(ordering: .relaxed) > 0 }
}
