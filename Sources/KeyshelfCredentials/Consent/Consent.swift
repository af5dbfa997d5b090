/// Asks the user for consent (DESIGN §5): answered by the TUI's dialogs, the
/// CLI's `/dev/tty` prompt, or one of the fixed policies below.
public protocol Consent: Sendable {
    /// Shows `request` and waits for the answer. Must not throw: failure to ask is `.declined`.
    func ask(_ request: ConsentRequest) -> ConsentAnswer
    /// True when `ask` never waits for a person (a fixed policy, answers
    /// relayed from elsewhere): the facade then asks inside the vault's
    /// locked write directly, without a dry run first. Default false.
    var answersWithoutWaiting: Bool { get }
    /// True once a request was put aside unanswered, to be put to the user
    /// elsewhere (the agent's relayed consent: the client asks in its own
    /// terminal and sends the operation again). A write then saves nothing
    /// (`Keyshelf`'s changes throw `errSecUserCanceled` instead), even where
    /// the facade would carry on past a declined request. Default false.
    var isWaitingForAnswer: Bool { get }
}

extension Consent {
    public var answersWithoutWaiting: Bool { false }
    public var isWaitingForAnswer: Bool { false }
}

/// The non-interactive default: nobody to ask, so every request is declined
/// (`errSecUserCanceled`, exit 4) (DESIGN §5).
public struct DeclineAll: Consent {
    public init() {}
    public func ask(_ request: ConsentRequest) -> ConsentAnswer { .declined }
    public var answersWithoutWaiting: Bool { true }
}

/// `--yes`: every request is approved; a `release` releases every listed account.
public struct ApproveAll: Consent {
    public init() {}
    public func ask(_ request: ConsentRequest) -> ConsentAnswer { .approved }
    public var answersWithoutWaiting: Bool { true }
}
