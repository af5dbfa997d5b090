import Foundation
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfCredentials

/// A consent that answers from a script and records what it was asked.
final class ScriptedConsent: Consent, @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [ConsentAnswer]
    private let fallback: ConsentAnswer
    private(set) var asked: [ConsentRequest] = []

    init(_ answers: [ConsentAnswer] = [], otherwise fallback: ConsentAnswer = .declined) {
        self.answers = answers
        self.fallback = fallback
    }

    func ask(_ request: ConsentRequest) -> ConsentAnswer {
        lock.withLock {
            asked.append(request)
            return answers.isEmpty ? fallback : answers.removeFirst()
        }
    }

    var requests: [ConsentRequest] { lock.withLock { asked } }
}

/// A login prompt that returns scripted credentials and records the calls.
final class ScriptedPrompt: LoginPrompt {
    var replies: [PromptedCredential?]
    private(set) var calls: [(account: String?, failedAttempts: Int, suggestion: Secret)] = []

    init(_ replies: [PromptedCredential?]) {
        self.replies = replies
    }

    func credential(for server: ServerName, account: String?, suggestion: Secret, failedAttempts: Int) -> PromptedCredential? {
        calls.append((account, failedAttempts, suggestion))
        return replies.isEmpty ? nil : replies.removeFirst()
    }
}

/// A check that accepts exactly one password and records what it tried.
final class PasswordCheck: CredentialCheck {
    let accepted: String
    private(set) var tried: [String] = []

    init(accepts password: String) {
        accepted = password
    }

    func accepts(server: ServerName, account: String, password: Secret) throws -> Bool {
        let text = password.unsafeString() ?? ""
        tried.append("\(account):\(text)")
        return text == accepted
    }
}

struct FixedMasterPassword: UserPresencePrompt {
    var typed: String?
    func askMasterPassword(reason: String) -> Secret? { typed.map { Secret(utf8: $0) } }
}

func secret(_ text: String) -> Secret { Secret(utf8: text) }

func server(_ text: String) -> ServerName { try! ServerName(parsing: text) }

func internetItem(_ host: String, _ account: String, _ password: String, port: Int = 0, scheme: String = "https",
                  accessible: Accessible = .whenUnlocked, accessControl: AccessControl = .none,
                  synchronizable: Bool = false, date: Date = Date(timeIntervalSince1970: 1_000)) -> Item {
    Item(itemClass: .internetPassword, account: account, server: server(host).host, protocol: scheme, port: port,
         creationDate: date, accessible: accessible, accessControl: accessControl,
         synchronizable: synchronizable, password: secret(password))
}

extension Secret {
    var text: String { unsafeString() ?? "<not UTF-8>" }
}
