import Foundation
import KeyshelfTransfer
import KeyshelfVault

extension ShelfApp {
    /// `i`: asks for an export (or a pass store), shows what importing it would do, and
    /// imports after consent (issue 5, docs/import.md).
    ///
    /// Every decision (format, mapping, skipped and failed rows, which rows
    /// update a saved password) is KeyshelfTransfer's; the TUI collects the
    /// path and the answers and shows the report. A file that cannot be read
    /// keeps the form open with the reason and its line; nothing is changed.
    func importFile() {
        let formats = ["auto"] + ImportFormat.allCases.map(\.rawValue)
        let form = Form(title: "Import Passwords", fields: [
            Form.Field(label: "File", input: .text(TextField()),
                       hint: "an export file or a pass store folder; ~ is home"),
            Form.Field(label: "Format", input: .choice(formats, selected: 0), hint: "auto reads the header line · Space switches"),
            Form.Field(label: "Store", input: .choice(["shared", "local"], selected: 0), hint: "Space switches"),
        ])
        var plan: ImportPlan?
        run(form) {
            let path = form.text(at: 0)?.trimmingCharacters(in: .whitespaces) ?? ""
            guard !path.isEmpty else {
                form.fields[0].error = "Enter the path of the CSV file"
                form.focus(on: 0)
                return "Some fields need a value."
            }
            let format = form.choice(at: 1).flatMap { $0 == 0 ? nil : ImportFormat.allCases[$0 - 1] }
            let store: Store = form.choice(at: 2) == 1 ? .local : .shared
            do {
                plan = try shelf.planImport(path: NSString(string: path).expandingTildeInPath, format: format, store: store)
            } catch {
                return "\(error)"
            }
            return nil
        }
        if let plan { confirmImport(plan) }
    }

    /// The dry-run report in a scrollable dialog that is also the consent:
    /// "Import N Passwords?" with Cancel (focused) and Import.
    private func confirmImport(_ plan: ImportPlan) {
        let count = plan.additions.count + plan.updates.count
        var lines = plan.dryRunReport.lines
        if !plan.updates.isEmpty {
            lines += ["", "Each update asks before it replaces a saved password."]
        }
        var dialog = count == 0
            ? Dialog(title: "Nothing to Import", message: lines.joined(separator: "\n"), buttons: ["Close"])
            : Dialog(title: count == 1 ? "Import 1 Password?" : "Import \(count) Passwords?",
                     message: lines.joined(separator: "\n"), buttons: ["Cancel", "Import"])
        dialog.width = (lines.map { TerminalText.columns(TerminalText.sanitize($0)) }.max() ?? 0) + 4
        let outcome = present(dialog)
        guard count > 0, outcome == .activated(1) else {
            return setStatus("Nothing was imported.")
        }
        let before = Set(index.records.map(\.id))
        do {
            let report = try shelf.commitImport(plan, prompts: self)
            state.apply(.resetSearch)
            reload(selectingNewSince: before)
            setStatus("\(URL(fileURLWithPath: plan.source.path).lastPathComponent): \(report.summary).")
        } catch {
            setStatus("Nothing was imported: \(error)", error: true)
        }
    }
}
