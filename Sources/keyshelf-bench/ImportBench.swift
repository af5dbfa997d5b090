import Foundation
import KeyshelfCredentials
import KeyshelfCrypto
import KeyshelfTransfer
import KeyshelfVault

/// Import of a generated 10k-row Chrome export into an empty shared store
/// (issue 5, target ≤ 1 s), and the Chrome export of the result.
///
/// The vault is created with the minimum Argon2id limits before the clock
/// starts: the figure excludes key derivation and covers reading and parsing
/// the file (libcsv), normalising every URL (libidn2), planning, and the
/// single sealed, atomic `VaultSession.modify` save.
func runImportBenchmarks() throws {
    let rowCount = 10_000
    let runs = 5
    let root = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        .appendingPathComponent("keyshelf-import-bench-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let csv = root.appendingPathComponent("chrome.csv")
    try chromeExport(rows: rowCount).write(to: csv)

    var importTimes: [Double] = []
    var exportTimes: [Double] = []
    for run in 0..<runs {
        let directory = VaultDirectory(url: root.appendingPathComponent("vault-\(run)", isDirectory: true))
        let session = try directory.create(password: Secret(utf8: "bench"), limits: .minimum)
        let start = DispatchTime.now()
        let plan = try Importer.plan(path: csv.path, format: nil, store: .shared, session: session)
        let report = try Importer.commit(plan, session: session, consent: DeclineAll())
        importTimes.append(seconds(since: start))
        guard report.imported.count == rowCount else {
            throw BenchError("expected \(rowCount) imported rows, got \(report.summary)")
        }
        let exportStart = DispatchTime.now()
        try PasswordExport.write(try session.contents().shared, to: root.appendingPathComponent("export-\(run).csv").path)
        exportTimes.append(seconds(since: exportStart))
    }
    print(String(format: "import %d-row Chrome CSV (no Argon2id): median %.3f s, best %.3f s over %d runs (target ≤ 1 s)",
                 rowCount, median(importTimes), importTimes.min()!, runs))
    print(String(format: "export %d items to Chrome CSV: median %.3f s", rowCount, median(exportTimes)))
}

/// A Chrome export with the traps of real files: quoted commas and quotes,
/// notes with newlines, ports, paths, user info and IDN hosts.
private func chromeExport(rows: Int) -> Data {
    var text = "name,url,username,password,note\r\n"
    for i in 0..<rows {
        let host: String
        switch i % 4 {
        case 0: host = "site\(i).example.com"
        case 1: host = "user:pw@site\(i).example.org:8443"
        case 2: host = "bücher\(i).example"
        default: host = "login.site\(i).example.net"
        }
        let note = i % 10 == 0 ? "\"first, line\nsecond \"\"line\"\"\"" : ""
        text += "site\(i),https://\(host)/path/\(i)?q=1,user\(i)@example.com,\"pw-\(i),\"\"x\"\"\",\(note)\r\n"
    }
    return Data(text.utf8)
}

private func seconds(since start: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

private func median(_ values: [Double]) -> Double {
    values.sorted()[values.count / 2]
}
