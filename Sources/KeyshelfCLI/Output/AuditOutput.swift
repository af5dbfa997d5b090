import KeyshelfCredentials

/// Prints an audit report (docs/audit.md): names and problem words only, never a password.
enum AuditOutput {
    /// One JSON array: per account `server` (Unicode display host), `account`,
    /// `store`, `problems` (words in the order weak, reused, compromised, insecure),
    /// and `port` when not 443.
    static func printJSON(_ findings: [AuditFinding], _ context: CommandContext) {
        var writer = JSONWriter()
        writer.beginArray()
        for finding in findings {
            writer.beginObject()
            writer.field("server", finding.entry.server.displayHost)
            writer.field("account", finding.entry.account)
            writer.field("store", finding.entry.store.rawValue)
            writer.field("problems", finding.problems.map(\.rawValue))
            if let port = finding.entry.server.reportedPort { writer.field("port", port) }
            writer.endObject()
        }
        writer.endArray()
        context.standardOutput.write(String(decoding: writer.bytes, as: UTF8.self) + "\n")
    }

    /// "server<TAB>account<TAB>store<TAB>weak,reused" per account, then an
    /// indented line per problem with its reason.
    static func printLines(_ findings: [AuditFinding], _ context: CommandContext) {
        var text = ""
        for finding in findings {
            text += InertText.make(finding.entry.server.qualified) + "\t" + InertText.make(finding.entry.account)
            text += "\t" + finding.entry.store.rawValue + "\t" + finding.problems.map(\.rawValue).joined(separator: ",") + "\n"
            for problem in finding.problems {
                text += "    \(problem.rawValue): \(finding.reasons[problem] ?? "")\n"
            }
        }
        context.standardOutput.write(text)
    }

    /// The line for standard error: how many accounts were audited and found, and how many findings are ignored.
    static func summary(_ report: AuditReport, shown: [AuditFinding]) -> String {
        var line = "audited \(report.auditedCount) account\(report.auditedCount == 1 ? "" : "s"): "
        line += shown.isEmpty ? "nothing found" : "\(shown.count) with findings"
        if report.ignoredCount > 0 { line += " (\(report.ignoredCount) ignored finding\(report.ignoredCount == 1 ? "" : "s") not shown)" }
        return line
    }
}
