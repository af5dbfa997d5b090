import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault

/// The agent's part of a `ShelfOperation`: its request code. The agent
/// only encodes and decodes operations and results (below) and runs
/// `ShelfOperation.perform(on:)` on its open vault; consent is asked by the client.
extension ShelfOperation {
    var code: AgentProtocol.Operation {
        switch self {
        case .get: .get
        case .list: .list
        case .search: .search
        case .change: .change
        case .delete: .delete
        case .deleteGeneric: .deleteGeneric
        case .edit: .edit
        case .editGeneric: .editGeneric
        case .lookup: .lookup
        case .suggestPassword: .suggestPassword
        case .saveLogin: .saveLogin
        case .export: .export
        case .planImport: .planImport
        case .importLogins: .importLogins
        case .changeMasterPassword: .changeMasterPassword
        }
    }

    /// Whether the client must never perform the operation directly once
    /// the agent may have started it: after `changeMasterPassword` the files
    /// may be under the new password, so a reply that does not come, or a
    /// vault error, is reported, not retried (docs/agent-protocol.md, "When
    /// the agent fails").
    var isRetriedOnlyBeforeSending: Bool {
        if case .changeMasterPassword = self { true } else { false }
    }

    /// Seconds the client waits for the reply: `changeMasterPassword` runs
    /// Argon2id twice (check the current password, derive the new key), at
    /// most at `VaultDirectory.maximumLimits` (16 passes over 2 GiB) on a busy
    /// machine; every other operation `AgentClient.operationTimeoutSeconds`.
    var replyTimeoutSeconds: Double {
        isRetriedOnlyBeforeSending ? AgentClient.passwordChangeTimeoutSeconds : AgentClient.operationTimeoutSeconds
    }
}

// MARK: - Wire encoding (docs/agent-protocol.md, "Requests")

extension FrameWriter {
    /// The operation's fields (after the operation code) and the consent answers so far.
    mutating func operation(_ operation: ShelfOperation, answers: ConsentAnswers) {
        switch operation {
        case let .get(server, account, filter):
            pattern(server)
            optionalString(account)
            self.filter(filter)
            self.answers(answers)
        case let .list(server, filter):
            integer(UInt8(server == nil ? 0 : 1))
            if let server { pattern(server) }
            self.filter(filter)
        case let .search(query, filter):
            string(query)
            self.filter(filter)
        case let .change(server, account, password, filter, newItems):
            pattern(server)
            string(account)
            secret(password)
            self.filter(filter)
            store(newItems)
            self.answers(answers)
        case let .delete(server, account, filter):
            pattern(server)
            string(account)
            self.filter(filter)
            self.answers(answers)
        case let .deleteGeneric(service, account):
            string(service)
            string(account)
            self.answers(answers)
        case let .edit(server, account, filter, changes):
            pattern(server)
            string(account)
            self.filter(filter)
            self.changes(changes)
            self.answers(answers)
        case let .editGeneric(service, account, changes):
            string(service)
            string(account)
            self.changes(changes)
            self.answers(answers)
        case let .lookup(server, account, passwordsOnly):
            pattern(server)
            optionalString(account)
            integer(UInt8(passwordsOnly ? 1 : 0))
            self.answers(answers)
        case .suggestPassword(let server):
            self.server(server)
        case let .saveLogin(server, account, password, localOnly):
            self.server(server)
            string(account)
            secret(password)
            integer(UInt8(localOnly ? 1 : 0))
            self.answers(answers)
        case .export:
            break
        case let .planImport(logins, store):
            self.store(store)
            self.logins(logins)
        case let .importLogins(additions, updates, store):
            self.store(store)
            logins(additions)
            logins(updates)
        case let .changeMasterPassword(current, new):
            secret(current)
            secret(new)
        }
    }
}

extension FrameReader {
    /// The schemes of a server the login flow runs for: a scheme-less SERVER
    /// resolves to the saved account's server, whose protocol may be any of
    /// the Keychain's (`ServerName.keychainProtocols`).
    static let loginSchemes = Set(ServerName.keychainProtocols.keys)

    /// The fields of `code` written by `FrameWriter.operation`.
    mutating func operation(_ code: AgentProtocol.Operation) throws -> (ShelfOperation, ConsentAnswers) {
        switch code {
        case .get:
            let operation = ShelfOperation.get(server: try checkedPattern(), account: try optionalString(), filter: try filter())
            return (operation, try answers())
        case .list:
            let server = try flag() ? try checkedPattern() : nil
            return (.list(server: server, filter: try filter()), ConsentAnswers())
        case .search:
            return (.search(query: try string(), filter: try filter()), ConsentAnswers())
        case .change:
            let server = try checkedPattern()
            let account = try string()
            let password = try secret()
            // The CLI and TUI never save an empty account or password.
            guard !account.isEmpty, password.byteCount > 0 else {
                throw AgentProtocol.MalformedFrame(reason: "an empty account or password")
            }
            let operation = ShelfOperation.change(server: server, account: account, password: password,
                                                  filter: try filter(), newItems: try store())
            return (operation, try answers())
        case .delete:
            let server = try checkedPattern()
            let account = try string()
            // `keyshelf rm` always names the account.
            guard !account.isEmpty else { throw AgentProtocol.MalformedFrame(reason: "an empty account") }
            return (.delete(server: server, account: account, filter: try filter()), try answers())
        case .deleteGeneric:
            let service = try string()
            let account = try string()
            // The facade checks the service name itself (`checkService`), as on the direct path.
            guard !service.isEmpty, !account.isEmpty else { throw AgentProtocol.MalformedFrame(reason: "an empty service or account") }
            return (.deleteGeneric(service: service, account: account), try answers())
        case .edit:
            let server = try checkedPattern()
            let account = try string()
            // `keyshelf edit` always names the account.
            guard !account.isEmpty else { throw AgentProtocol.MalformedFrame(reason: "an empty account") }
            let filter = try filter()
            return (.edit(server: server, account: account, filter: filter, changes: try changes()), try answers())
        case .editGeneric:
            let service = try string()
            let account = try string()
            guard !service.isEmpty, !account.isEmpty else { throw AgentProtocol.MalformedFrame(reason: "an empty service or account") }
            return (.editGeneric(service: service, account: account, changes: try changes()), try answers())
        case .lookup:
            let server = try checkedPattern()
            let account = try optionalString()
            // `keyshelf login` refuses an empty ACCOUNT (`ServerArgument.account`).
            guard account?.isEmpty != true else { throw AgentProtocol.MalformedFrame(reason: "an empty account") }
            return (.lookup(server: server, account: account, passwordsOnly: try flag()), try answers())
        case .suggestPassword:
            return (.suggestPassword(server: try checkedServer(schemes: Self.loginSchemes)), ConsentAnswers())
        case .saveLogin:
            let server = try checkedServer(schemes: Self.loginSchemes)
            let account = try string()
            let password = try secret()
            // The login flow never saves an empty account or password.
            guard !account.isEmpty, password.byteCount > 0 else {
                throw AgentProtocol.MalformedFrame(reason: "an empty account or password")
            }
            let operation = ShelfOperation.saveLogin(server: server, account: account, password: password, localOnly: try flag())
            return (operation, try answers())
        case .export:
            return (.export, ConsentAnswers())
        case .planImport:
            let store = try store()
            return (.planImport(logins: try logins(), store: store), ConsentAnswers())
        case .importLogins:
            let store = try store()
            return (.importLogins(additions: try logins(), updates: try logins(), store: store), ConsentAnswers())
        case .changeMasterPassword:
            let current = try secret()
            let new = try secret()
            // `passwd` refuses an empty new password (`NewMasterPassword`); an empty current one is only wrong.
            guard new.byteCount > 0 else { throw AgentProtocol.MalformedFrame(reason: "an empty new master password") }
            return (.changeMasterPassword(current: current, new: new), ConsentAnswers())
        case .status, .unlock, .keys, .lock:
            throw AgentProtocol.MalformedFrame(reason: "not a credentials operation")
        }
    }
}
