import Foundation
import KeyshelfCrypto
import Testing
import KeyshelfVault
@testable import KeyshelfAgent

/// The wire format, the limits and opening a vault with exported keys, in process.
@Suite struct AgentProtocolTests {
    @Test func keysRoundTripThroughAFrame() throws {
        let keys = [
            VaultPasswordKey(salt: Random.bytes(16), limits: .minimum, key: Random.secureBytes(32)),
            VaultPasswordKey(salt: Random.bytes(16), limits: .interactive, key: Random.secureBytes(32)),
        ]
        var writer = FrameWriter()
        writer.string("/vault")
        writer.keys(keys)
        let body = writer.withBody { SecureBytes(copying: $0) }
        var reader = FrameReader(body)
        #expect(try reader.string() == "/vault")
        let decoded = try reader.keys()
        #expect(reader.isAtEnd)
        #expect(decoded.count == 2)
        for (a, b) in zip(keys, decoded) {
            #expect(a.salt == b.salt && a.limits == b.limits && a.key == b.key)
        }
    }

    @Test func truncatedFramesAreRejected() throws {
        var writer = FrameWriter()
        writer.keys([VaultPasswordKey(salt: Random.bytes(16), limits: .minimum, key: Random.secureBytes(32))])
        let whole = writer.withBody { Array($0) }
        for cut in 0..<whole.count {
            var reader = FrameReader(SecureBytes(copying: whole[0..<cut]))
            #expect(throws: AgentProtocol.MalformedFrame.self) { try reader.keys() }
        }
    }

    @Test func timeoutsComeFromFlagsThenEnvironmentThenDefaults() throws {
        #expect(try AgentTimeouts.resolve(idle: nil, maximum: nil, environment: [:]) == .defaults)
        #expect(AgentTimeouts.defaults == AgentTimeouts(idleSeconds: 900, maximumSeconds: 28_800))
        let env = ["KEYSHELF_AGENT_IDLE": "60", "KEYSHELF_AGENT_MAX": "120"]
        #expect(try AgentTimeouts.resolve(idle: nil, maximum: nil, environment: env) == AgentTimeouts(idleSeconds: 60, maximumSeconds: 120))
        #expect(try AgentTimeouts.resolve(idle: 5, maximum: 6, environment: env) == AgentTimeouts(idleSeconds: 5, maximumSeconds: 6))
        #expect(throws: AgentError.self) { try AgentTimeouts.resolve(idle: nil, maximum: nil, environment: ["KEYSHELF_AGENT_IDLE": "soon"]) }
        #expect(throws: AgentError.self) { try AgentTimeouts.resolve(idle: nil, maximum: nil, environment: ["KEYSHELF_AGENT_MAX": "0"]) }
    }

    @Test func vaultOpensWithExportedKeysAndRefusesOthers() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-agent-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = VaultDirectory(url: folder)
        let session = try directory.create(password: Secret(utf8: "pw"), limits: .minimum)
        try session.modify { $0.local.append(Item(account: "alice", server: "example.com", password: Secret(utf8: "s3cret"))) }
        let keys = try session.passwordKeys()
        session.lock()
        #expect(keys.count == 1)

        let reopened = try directory.unlock(passwordKeys: keys)
        #expect(try reopened.contents().local.first?.password == Secret(utf8: "s3cret"))
        try reopened.modify { $0.local.append(Item(account: "bob", server: "example.com", password: Secret(utf8: "x"))) }
        reopened.lock()
        #expect(try directory.unlock(password: Secret(utf8: "pw")).contents().local.count == 2)

        let strangers = [VaultPasswordKey(salt: keys[0].salt, limits: keys[0].limits, key: Random.secureBytes(32))]
        #expect(throws: VaultError(.wrongPassword, file: "", reason: "")) { try directory.unlock(passwordKeys: strangers) }
        let otherSalt = [VaultPasswordKey(salt: Random.bytes(16), limits: keys[0].limits, key: keys[0].key)]
        #expect(throws: VaultError(.wrongPassword, file: "", reason: "")) { try directory.unlock(passwordKeys: otherSalt) }
    }

    @Test func socketPathDependsOnTheResolvedVaultPath() {
        let a = AgentLocation(vault: VaultDirectory(url: URL(fileURLWithPath: "/tmp/x/../vault-a")), environment: ["XDG_RUNTIME_DIR": "/run/user/7"])
        let b = AgentLocation(vault: VaultDirectory(url: URL(fileURLWithPath: "/tmp/vault-a")), environment: ["XDG_RUNTIME_DIR": "/run/user/7"])
        let c = AgentLocation(vault: VaultDirectory(url: URL(fileURLWithPath: "/tmp/vault-b")), environment: [:])
        #expect(a.socketPath == b.socketPath)
        #expect(a.socketPath.hasPrefix("/run/user/7/keyshelf/agent-"))
        #expect(c.socketPath.hasPrefix("/tmp/keyshelf-\(getuid())/agent-"))
        #expect(c.socketPath != b.socketPath)
    }
}
