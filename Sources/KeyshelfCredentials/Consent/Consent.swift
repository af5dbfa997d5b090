/// Asks the user for consent (DESIGN §5): answered by the TUI's dialogs, the
/// CLI's `/dev/tty` prompt, or one of the fixed policies below.
public protocol Consent: Sendable {
    /// Shows `request` and waits for the answer. Must not throw: failure to ask is `.declined`.
    func ask(_ request: ConsentRequest) -> ConsentAnswer
    /// True when `ask` never waits for a person (a fixed policy, answers
    /// relayed from elsewhere): the facade then asks inside the vault's
    /// locked write directly, without a dry run first. Default false.
    var answersWithoutWaiting: Bool { get }
}

extension Consent {
    public var answersWithoutWaiting: Bool { false }
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
