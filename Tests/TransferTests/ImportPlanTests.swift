import Foundation
import Testing
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfVault
@testable import KeyshelfTransfer

/// Conflicts with saved items and consent (issue 5, "Conflicts").
@Suite struct ImportPlanTests {
    private let header = "name,url,username,password,note\n"

    private func source(_ rows: String) throws -> ImportSource {
        try ImportSource(table: CSVReader.parse(SecureBytes(utf8: header + rows), path: "t.csv"), path: "t.csv", format: nil)
    }

    private func saved(_ host: String, _ account: String, _ password: String, deleted: Bool = false) -> Item {
        Item(account: account, server: host, synchronizable: true, password: Secret(utf8: password), isDeleted: deleted)
    }

    /// Records every request and answers with a fixed answer.
    private final class Recorder: Consent, @unchecked Sendable {
        let answer: ConsentAnswer
        var asked: [ConsentRequest] = []
        init(_ answer: ConsentAnswer) { self.answer = answer }
        func ask(_ request: ConsentRequest) -> ConsentAnswer {
            asked.append(request)
            return answer
        }
    }

    @Test func identicalSavedRecordIsSkipped() throws {
        let plan = ImportPlan(source: try source("a,https://a.example/,al,pw,\n"), existing: [saved("a.example", "al", "pw")], store: .shared)
        #expect(plan.additions.isEmpty && plan.updates.isEmpty)
        #expect(plan.skipped.map(\.reason) == ["already saved"])
    }

    @Test func otherPasswordIsAnUpdateThatNeedsConsent() throws {
        let existing = [saved("a.example", "al", "old")]
        var plan = ImportPlan(source: try source("a,https://a.example/,al,new,\n"), existing: existing, store: .shared)
        #expect(plan.updates.count == 1)

        let recorder = Recorder(.declined)
        plan.askConsent(recorder)
        #expect(recorder.asked == [.update(server: try ServerName(parsing: "a.example"), account: "al")])
        #expect(plan.updates.isEmpty)
        #expect(plan.skipped.map(\.reason) == ["update declined; saved password kept"])
        var items = existing
        let report = plan.apply(to: &items)
        #expect(items[0].password == Secret(utf8: "old"))
        #expect(report.updated.isEmpty)
    }

    @Test func approvedUpdateReplacesThePasswordAndKeepsTheItem() throws {
        let existing = [saved("a.example", "al", "old")]
        var plan = ImportPlan(source: try source("a,https://a.example/,al,new,a note\n"), existing: existing, store: .shared)
        plan.askConsent(ApproveAll())
        var items = existing
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let report = plan.apply(to: &items, now: now)
        #expect(items.count == 1)
        #expect(items[0].id == existing[0].id)
        #expect(items[0].password == Secret(utf8: "new"))
        #expect(items[0].comment == "a note")
        #expect(items[0].modificationDate == now)
        #expect(report.updated.map(\.account) == ["al"])
    }

    @Test func sameAccountOnAnotherPortOrSchemeIsAnotherServer() throws {
        let plan = ImportPlan(source: try source("a,https://a.example:8443/,al,pw,\nb,http://a.example/,al,pw,\n"),
                              existing: [saved("a.example", "al", "other")], store: .shared)
        #expect(plan.additions.count == 2)
        #expect(plan.updates.isEmpty)
    }

    @Test func contradictingRowsInOneFileKeepTheFirst() throws {
        let plan = ImportPlan(source: try source("a,https://a.example/,al,one,\nb,https://A.EXAMPLE/x,al,two,\n"), existing: [], store: .shared)
        #expect(plan.additions.map(\.position.row) == [2])
        #expect(plan.failed.map(\.reason) == ["same server and account as row 2 with another password; row 2 kept"])
    }

    @Test func tombstoneIsRevivedWithItsId() throws {
        let tomb = saved("a.example", "al", "gone", deleted: true)
        let plan = ImportPlan(source: try source("a,https://a.example/,al,pw,\n"), existing: [tomb], store: .shared)
        var items = [tomb]
        _ = plan.apply(to: &items)
        #expect(items.count == 1)
        #expect(items[0].id == tomb.id)
        #expect(!items[0].isDeleted)
        #expect(items[0].password == Secret(utf8: "pw"))
    }

    @Test func recordSavedBetweenPlanAndApplyIsNotOverwritten() throws {
        let plan = ImportPlan(source: try source("a,https://a.example/,al,pw,\n"), existing: [], store: .shared)
        var items = [saved("a.example", "al", "someone else's")]
        let report = plan.apply(to: &items)
        #expect(items.count == 1)
        #expect(items[0].password == Secret(utf8: "someone else's"))
        #expect(report.imported.isEmpty)
        #expect(report.skipped.map(\.reason) == ["saved meanwhile with another password; not replaced"])
    }

    @Test func localStoreItemsAreNotSynchronizable() throws {
        let plan = ImportPlan(source: try source("a,https://a.example/,al,pw,\n"), existing: [], store: .local)
        var items: [Item] = []
        _ = plan.apply(to: &items)
        #expect(items.map(\.synchronizable) == [false])
    }

    @Test func reportNamesEveryProblemRowWithoutSecretsAndShowsControlCharactersInert() throws {
        let plan = ImportPlan(source: try source("a,https://a.example/,\"x\u{1B}]0;pwned\u{7}\",,\nb,https://b.example/,bo,secret-pw,\n"), existing: [], store: .shared)
        let text = plan.dryRunReport.lines.joined(separator: "\n")
        #expect(text.contains("would import 1, would update 0, skipped 0, failed 1 (dry run: nothing written)"))
        #expect(text.contains("failed row 2 (line 2): \"x\\u{1B}]0;pwned\\u{7}\" on a.example: no password"))
        #expect(!text.contains("\u{1B}"))
        #expect(!text.contains("secret-pw"))
    }
}
