import KeyshelfVault

extension ShelfApp {
    /// The "Security Recommendations" view (`S`): every account with an audit
    /// finding and the reason; ignored findings are not listed (docs/audit.md).
    func showSecurityRecommendations() {
        let message: String
        if findings.isEmpty {
            message = "No weak, reused or http-only passwords found."
        } else {
            message = findings.map { finding in
                let head = "! \(finding.account) on \(finding.serverWithPort) (\(finding.store.rawValue))"
                return ([head] + finding.problems.map { "    \($0.word): \($0.reason)" }).joined(separator: "\n")
            }.joined(separator: "\n")
        }
        var dialog = Dialog(title: "Security Recommendations", message: message, buttons: ["Close"])
        dialog.width = max(40, screen.size.columns - 4)
        _ = present(dialog)
    }

    /// Re-runs the audit for the badges and the view.
    func reloadFindings() {
        // Read before auditing: work ending during this audit is picked up on the next tick.
        findingsGeneration = shelf.auditGeneration
        findings = (try? shelf.auditFindings()) ?? []
        findingIDs = Set(findings.map(\.id))
    }

    /// Audits again when the shelf's background estimates ended since the last
    /// audit, so the badges of a freshly opened shelf appear once ready.
    /// - Returns: whether the findings were reloaded.
    func adoptBackgroundAudit() -> Bool {
        guard shelf.auditGeneration != findingsGeneration else { return false }
        reloadFindings()
        return true
    }
}
