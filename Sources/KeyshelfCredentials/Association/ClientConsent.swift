/// A consent policy that names the client a release is for: every
/// `.release(server:accounts:)` is asked as
/// `.releaseToClient(client:server:accounts:)` (issue 18 item 2: "the release
/// consent names the client"); other questions pass through unchanged.
public struct ClientConsent: Consent {
    /// The client the released credentials go to.
    public let client: AppIdentifier
    /// The policy that answers.
    public let base: any Consent

    public init(client: AppIdentifier, base: any Consent) {
        self.client = client
        self.base = base
    }

    public func ask(_ request: ConsentRequest) -> ConsentAnswer {
        if case let .release(server, accounts) = request {
            return base.ask(.releaseToClient(client: client.value, server: server, accounts: accounts))
        }
        return base.ask(request)
    }

    public var answersWithoutWaiting: Bool { base.answersWithoutWaiting }

    public var isWaitingForAnswer: Bool { base.isWaitingForAnswer }
}
