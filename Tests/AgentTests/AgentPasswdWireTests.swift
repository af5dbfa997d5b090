import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
import Testing
@testable import KeyshelfAgent

/// The codec of `passwd`'s operation (`changeMasterPassword`, code 19) and
/// of the `vaultFailed` reply, and what the agent's state does with the
/// new keys (issue 12 item 2).
@Suite struct AgentPasswdWireTests {
    static let operation = ShelfOperation.changeMasterPassword(current: Secret(utf8: "old pässword"), new: Secret(utf8: "new\u{0}password"))

    func body(_ operation: ShelfOperation) -> [UInt8] {
        var writer = FrameWriter(capacity: 16)
        writer.operation(operation, answers: ConsentAnswers())
        return writer.withBody { Array($0) }
    }

    @Test func theRequestRoundTripsAndCutFramesAreRejected() throws {
        let whole = body(Self.operation)
        #expect(Self.operation.code == .changeMasterPassword && AgentProtocol.Operation.changeMasterPassword.rawValue == 19)
        var reader = FrameReader(SecureBytes(copying: whole))
        let (decoded, answers) = try reader.operation(.changeMasterPassword)
        #expect(reader.isAtEnd && !answers.approveAll && answers.given.isEmpty)
        guard case let .changeMasterPassword(current, new) = decoded else {
            Issue.record("not a changeMasterPassword: \(decoded)")
            return
        }
        #expect(current == Secret(utf8: "old pässword") && new == Secret(utf8: "new\u{0}password"))
        #expect(body(decoded) == whole)
        for cut in 0..<whole.count {
            var short = FrameReader(SecureBytes(copying: whole[0..<cut]))
            #expect(throws: AgentProtocol.MalformedFrame.self, "cut at \(cut)") { _ = try short.operation(.changeMasterPassword) }
        }
        // An empty current password is only a wrong one; an empty new one is never sent by `passwd`.
        var empty = FrameReader(SecureBytes(copying: body(.changeMasterPassword(current: Secret(utf8: ""), new: Secret(utf8: "n")))))
        #expect(throws: Never.self) { _ = try empty.operation(.changeMasterPassword) }
        var noNew = FrameReader(SecureBytes(copying: body(.changeMasterPassword(current: Secret(utf8: "c"), new: Secret(utf8: "")))))
        #expect(throws: AgentProtocol.MalformedFrame.self) { _ = try noNew.operation(.changeMasterPassword) }
    }

    @Test func aForgedSecretLengthIsRejected() throws {
        var writer = FrameWriter()
        writer.string("a")
        writer.integer(UInt32.max)
        writer.integer(UInt8(0x62))
        var reader = FrameReader(writer.withBody { SecureBytes(copying: $0) })
        #expect(throws: AgentProtocol.MalformedFrame.self) { _ = try reader.operation(.changeMasterPassword) }
    }

    @Test func theResultCarriesNothingAndTheOperationWaitsLongAndIsNeverRetriedAfterSending() throws {
        var writer = FrameWriter()
        writer.result(.masterPasswordChanged)
        #expect(writer.byteCount == 0)
        var reader = FrameReader(writer.withBody { SecureBytes(copying: $0) })
        #expect(try reader.result(of: Self.operation) == .masterPasswordChanged)
        #expect(ShelfResult.masterPasswordChanged.changedMasterPassword != nil)
        #expect(Self.operation.writes && Self.operation.isRetriedOnlyBeforeSending)
        #expect(Self.operation.replyTimeoutSeconds == AgentClient.passwordChangeTimeoutSeconds)
        #expect(AgentClient.passwordChangeTimeoutSeconds > 2 * AgentClient.operationTimeoutSeconds)
        let get = ShelfOperation.get(server: try ServerPattern(parsing: "example.com"), account: nil, filter: .both)
        #expect(!get.isRetriedOnlyBeforeSending && get.replyTimeoutSeconds == AgentClient.operationTimeoutSeconds)
    }

    @Test func vaultErrorsRoundTripAndUnknownCodesAreRejected() throws {
        #expect(Set(VaultError.Code.all.map(\.wireValue)).count == VaultError.Code.all.count)
        for code in VaultError.Code.all {
            let error = VaultError(code, file: "/v/local.vault", reason: "restore VAULT/backups/x \u{1B}[2J")
            var writer = FrameWriter()
            writer.vaultError(error)
            let whole = writer.withBody { Array($0) }
            var reader = FrameReader(SecureBytes(copying: whole))
            let decoded = try reader.vaultError()
            #expect(decoded.code == code && decoded.file == error.file && decoded.reason == error.reason && reader.isAtEnd)
            for cut in 0..<whole.count {
                var short = FrameReader(SecureBytes(copying: whole[0..<cut]))
                #expect(throws: AgentProtocol.MalformedFrame.self) { _ = try short.vaultError() }
            }
        }
        for forged: UInt8 in [0, 13, 255] {
            var writer = FrameWriter()
            writer.integer(forged)
            writer.string("f")
            writer.string("r")
            var reader = FrameReader(writer.withBody { SecureBytes(copying: $0) })
            #expect(throws: AgentProtocol.MalformedFrame.self) { _ = try reader.vaultError() }
        }
    }

    func key(_ byte: UInt8) -> VaultPasswordKey {
        VaultPasswordKey(salt: [UInt8](repeating: byte, count: PasswordHash.saltByteCount), limits: .minimum,
                         key: SecureBytes(copying: [UInt8](repeating: byte, count: 32)))
    }

    @Test func newKeysReplaceTheOldOnesAndRestartTheIdleLimit() {
        var state = AgentState(now: 0)
        let old = key(1)
        state.unlock([old], timeouts: AgentTimeouts(idleSeconds: 10, maximumSeconds: 100), now: 0)
        state.replaceKeys([key(2)], now: 50)
        #expect(state.keys.map(\.salt) == [key(2).salt])
        #expect(old.key == SecureBytes(copying: [UInt8](repeating: 0, count: 32)), "the old key is wiped")
        #expect(state.idleDeadline == 60 && state.absoluteDeadline == 100)

        // Past the absolute limit, or locked: the new keys are wiped, not kept.
        let late = key(3)
        state.replaceKeys([late], now: 100)
        #expect(state.keys.map(\.salt) == [key(2).salt])
        #expect(late.key == SecureBytes(copying: [UInt8](repeating: 0, count: 32)))
        state.lock()
        state.replaceKeys([key(4)], now: 60)
        #expect(!state.unlocked)
    }
}
