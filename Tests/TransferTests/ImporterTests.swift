import Foundation
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTransfer

/// Imports through a real vault (minimum Argon2id limits).
@Suite struct ImporterTests {
    private func withVault(_ body: (VaultSession, VaultDirectory) throws -> Void) throws {
        let url = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("keyshelf-import-tests-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: url) }
        let directory = VaultDirectory(url: url)
        try body(try directory.create(password: Secret(utf8: "pw"), limits: .minimum), directory)
    }

    @Test func importIsSavedAndSurvivesUnlockingAgain() throws {
        try withVault { session, directory in
            let plan = try Importer.plan(path: FixtureFiles.path("bitwarden.csv"), format: nil, store: .shared, session: session)
            let report = try Importer.commit(plan, session: session, consent: DeclineAll())
            #expect(report.summary == "imported 5, updated 0, skipped 2, failed 0")
            let reopened = try directory.unlock(password: Secret(utf8: "pw"))
            let contents = try reopened.contents()
            #expect(contents.local.isEmpty)
            #expect(Set(contents.shared.map(\.server)) == ["example.com", "mail.example.org", "webmail.example.org", "com.example.app", "totp.example"])
            #expect(contents.shared.first { $0.server == "example.com" }?.otpauth.hasPrefix("otpauth://totp/") == true)
        }
    }

    @Test func secondImportOfTheSameFileChangesNothing() throws {
        try withVault { session, _ in
            let path = FixtureFiles.path("chrome.csv")
            _ = try Importer.commit(try Importer.plan(path: path, format: nil, store: .local, session: session), session: session, consent: DeclineAll())
            let before = try session.contents()
            let report = try Importer.commit(try Importer.plan(path: path, format: nil, store: .local, session: session), session: session, consent: DeclineAll())
            #expect(report.imported.isEmpty && report.updated.isEmpty)
            #expect(report.skipped.filter { $0.reason == "already saved" }.count == 9)
            #expect(try session.contents().local == before.local)
        }
    }

    @Test func dryRunPlanWritesNothing() throws {
        try withVault { session, _ in
            let plan = try Importer.plan(path: FixtureFiles.path("safari.csv"), format: nil, store: .shared, session: session)
            #expect(plan.dryRunReport.summary == "would import 2, would update 0, skipped 0, failed 0")
            #expect(try session.contents().shared.isEmpty)
        }
    }

    @Test(arguments: ["malformed.csv", "truncated.csv", "latin1.csv", "unknown.csv"])
    func brokenFileIsRefusedBeforeTheVaultIsTouched(file: String) throws {
        try withVault { session, _ in
            #expect(throws: TransferError.self) {
                try Importer.plan(path: FixtureFiles.path(file), format: nil, store: .shared, session: session)
            }
            let shared = try session.contents().shared
            #expect(shared.isEmpty)
        }
    }
}

/// The same flow over the facade's in-memory vault (the TUI demo's).
@Suite struct MemoryVaultImportTests {
    @Test func updateAfterConsentThroughCredentialVault() throws {
        let existing = Item(account: "alice", server: "example.com", synchronizable: true, password: Secret(utf8: "old"))
        let vault = MemoryVault(items: StoredItems(shared: [existing]))
        let plan = try Importer.plan(path: FixtureFiles.path("safari.csv"), format: nil, store: .shared, vault: vault)
        #expect(plan.updates.map(\.account) == ["alice"])
        let report = try Importer.commit(plan, vault: vault, consent: ApproveAll())
        #expect(report.summary == "imported 1, updated 1, skipped 0, failed 0")
        #expect(vault.saveCount == 1)
        let shared = try vault.loadItems().shared
        #expect(shared.first { $0.account == "alice" }?.password == Secret(utf8: "safari-pw"))
    }
}
