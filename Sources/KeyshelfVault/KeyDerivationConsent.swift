import KeyshelfCrypto

/// A question the vault asks before it runs Argon2id with limits above the
/// ones this machine's vault uses (issue 11 item 3): a header's limits are
/// paid for before anything in the file is authenticated, so a tampered
/// `shared.vault` could make every command spend up to the ceiling
/// (`VaultDirectory.maximumLimits`) in time and memory.
public struct KeyDerivationRequest: Sendable, Equatable {
    /// The vault file whose header asks for `requested`.
    public var file: String
    /// The limits that header asks for.
    public var requested: PasswordHashLimits
    /// The limits this machine uses: `local.vault`'s, or those `init` was given.
    public var usual: PasswordHashLimits

    public init(file: String, requested: PasswordHashLimits, usual: PasswordHashLimits) {
        self.file = file
        self.requested = requested
        self.usual = usual
    }

    /// Whether `requested` asks for more passes or more memory than `usual`.
    static func exceeds(_ requested: PasswordHashLimits, _ usual: PasswordHashLimits) -> Bool {
        requested.opslimit > usual.opslimit || requested.memlimitBytes > usual.memlimitBytes
    }

    /// "Run Argon2id with Higher Limits?"
    public var title: String { "Run Argon2id with Higher Limits?" }

    /// A sentence naming the file, both limits, and why it may be tampering.
    public var message: String {
        "\(file) asks for Argon2id limits (\(requested)) above this machine's (\(usual)). They are paid before anything in the file is checked, so its header may have been tampered with. Continue only if you raised the limits on another machine."
    }

    /// Buttons, the safe one first: "Cancel" · "Continue".
    public var buttons: [String] { ["Cancel", "Continue"] }
}

/// Answers `KeyDerivationRequest`s: the CLI's terminal prompt, or the
/// refusal below when nobody can be asked. Modelled on the credentials'
/// `Consent` (DESIGN §5).
public protocol KeyDerivationConsent: Sendable {
    /// Shows `request` and waits for the answer; true runs Argon2id with the
    /// requested limits. Must not throw: failure to ask is false.
    func ask(_ request: KeyDerivationRequest) -> Bool
    /// True when `ask` never waits for a person: the vault then asks while
    /// it holds its lock. Otherwise it asks before taking the lock and
    /// replays the answer inside it. Default false.
    var answersWithoutWaiting: Bool { get }
}

extension KeyDerivationConsent {
    public var answersWithoutWaiting: Bool { false }
}

/// Nobody to ask: limits above this machine's are refused
/// (`VaultError.kdfLimitsNotApproved`, exit 7) without running Argon2id.
public struct RefuseHigherLimits: KeyDerivationConsent {
    public init() {}
    public func ask(_ request: KeyDerivationRequest) -> Bool { false }
    public var answersWithoutWaiting: Bool { true }
}

/// Asks each distinct request once and replays the answer, so a question
/// asked before the vault's lock is not asked again inside it; one that
/// only appears because the file changed meanwhile is asked then.
final class KeyDerivationGate {
    private let consent: any KeyDerivationConsent
    private let usual: PasswordHashLimits
    private var answers: [(KeyDerivationRequest, Bool)] = []

    /// - Parameter usual: the limits paid without asking (this machine's).
    init(_ consent: any KeyDerivationConsent, usual: PasswordHashLimits) {
        self.consent = consent
        self.usual = usual
    }

    /// Returns when `header`'s limits may be paid for: at most `usual`, or approved.
    /// - Throws: `VaultError.kdfLimitsNotApproved` when refused.
    func check(_ header: VaultHeader, path: String) throws {
        guard KeyDerivationRequest.exceeds(header.limits, usual) else { return }
        let request = KeyDerivationRequest(file: path, requested: header.limits, usual: usual)
        let approved: Bool
        if let known = answers.first(where: { $0.0 == request })?.1 {
            approved = known
        } else {
            approved = consent.ask(request)
            answers.append((request, approved))
        }
        guard approved else {
            let how = consent.answersWithoutWaiting
                ? "Refused without running Argon2id, as nobody can be asked here; run a keyshelf command in a terminal to be asked"
                : "Declined; Argon2id was not run"
            throw VaultError(.kdfLimitsNotApproved, file: path, reason: "asks for Argon2id limits (\(header.limits)) above this machine's (\(usual)); its header may have been tampered with. \(how) (after Continue, `keyshelf passwd` re-seals it with this machine's limits). If nobody raised the limits on another machine, restore the file from backups/ or your sync copy")
        }
    }
}
