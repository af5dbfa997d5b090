import Foundation

/// Asks each distinct request once and replays the answer.
///
/// The facade first runs an operation on a snapshot with this wrapper (so
/// dialogs appear while no vault lock is held), then runs it again inside the
/// locked `modify` with the same wrapper: identical requests get the
/// recorded answer; a request that only appears because the vault changed
/// meanwhile is asked then. It also asks a request once when one operation
/// touches both stores (e.g. the login flow's "save to both").
final class RecordedConsent: Consent, @unchecked Sendable {
    private let base: any Consent
    private let lock = NSLock()
    private var answers: [(ConsentRequest, ConsentAnswer)] = []

    init(_ base: any Consent) {
        self.base = base
    }

    func ask(_ request: ConsentRequest) -> ConsentAnswer {
        if let known = lock.withLock({ answers.first { $0.0 == request }?.1 }) { return known }
        let answer = base.ask(request)
        lock.withLock { answers.append((request, answer)) }
        return answer
    }

    var isWaitingForAnswer: Bool { base.isWaitingForAnswer }
}
