import Foundation
import KeyshelfCredentials
import KeyshelfCrypto

/// What the browser knows about one-time codes (docs/tui.md, "One-time codes").
/// Codes come from the shelf (the domain layer); this only remembers what is on show.
struct OneTimeCodeDisplay {
    /// The accounts with a secret, by id: the list's badge and the detail's line.
    var summaries: [UUID: OneTimeCodeSummary] = [:]
    /// The code on show and when it stops being valid (nil: HOTP, kept until the selection moves).
    var shown: (id: UUID, code: OneTimeCode, until: Date?)?
    /// A code to copy once it is valid (the current one had too few seconds left).
    var pendingCopy: (id: UUID, account: String, code: OneTimeCode, validFrom: Date)?
    /// Why the account's code could not be made, shown in the detail until the next reload.
    var failure: (id: UUID, message: String)?
}

extension ShelfApp {
    /// Cells of the countdown bar.
    static let countdownCells = 15

    /// Reads the summaries again (after a reload: an edit may have changed a secret).
    func reloadOneTimeCodes() {
        oneTime.summaries = (try? shelf.oneTimeCodeSummaries()) ?? [:]
        oneTime.shown = nil
        oneTime.failure = nil
    }

    /// True when the account has a one-time-code secret (the list's `otp` badge).
    func hasOneTimeCode(_ id: UUID) -> Bool { oneTime.summaries[id] != nil }

    /// The detail's "Code" line for `record`, nil when it has no secret. A live
    /// TOTP code is made here when none valid is on show; HOTP and `userPresence`
    /// codes only by `o` (`copyOneTimeCode`), so drawing never writes nor asks.
    func oneTimeCodeLine(for record: ShelfEntry) -> (label: String, value: String, role: Role)? {
        guard let summary = oneTime.summaries[record.id] else { return nil }
        if let failure = oneTime.failure, failure.id == record.id { return ("Code", failure.message, .error) }
        let time = now()
        if let shown = oneTime.shown, shown.id != record.id || shown.until.map({ time >= $0 }) == true {
            oneTime.shown = nil
        }
        if oneTime.shown == nil, summary.live {
            let seconds = Self.unixSeconds(time)
            do {
                let code = try shelf.oneTimeCode(of: record, at: seconds, prompts: self)
                oneTime.shown = (record.id, code, code.remaining.map { Date(timeIntervalSince1970: Double(seconds + Int64($0))) })
            } catch {
                oneTime.failure = (record.id, "\(error)")
                return ("Code", "\(error)", .error)
            }
        }
        guard let shown = oneTime.shown else {
            switch summary.kind {
            case .hotp: return ("Code", "HOTP · o makes, shows and copies the next code", .dim)
            case .totp: return ("Code", "o asks the master password, then copies", .dim)
            case nil: return ("Code", "the saved secret cannot be used; keyshelf otp set replaces it", .error)
            }
        }
        let code = Self.grouped(shown.code.code)
        guard let until = shown.until, let period = shown.code.period else {
            return ("Code", "\(code)   HOTP, counter advanced · o next code", .accent)
        }
        let remaining = max(1, Int(until.timeIntervalSince(time).rounded(.up)))
        return ("Code", "\(code)  \(Self.countdownBar(remaining: remaining, period: period)) \(remaining) s · o copy", .accent)
    }

    /// `o`: copies the selected account's code. With too few seconds left the
    /// next code is copied when it starts (`OTPAuth.copyTime`), without
    /// blocking the keys; a HOTP code is made (the counter advances) and shown.
    func copyOneTimeCode() {
        guard let record = selectedRecord else { return setStatus("Select an account first.", error: true) }
        guard hasOneTimeCode(record.id) else {
            return setStatus("\(record.account) has no one-time-code secret (keyshelf otp set adds one).", error: true)
        }
        let seconds = Self.unixSeconds(now())
        do {
            let copy = try shelf.oneTimeCodeToCopy(of: record, at: seconds, prompts: self)
            oneTime.failure = nil
            oneTime.pendingCopy = (record.id, record.account, copy.code, Date(timeIntervalSince1970: Double(copy.validFrom)))
            if copy.validFrom > seconds {
                setStatus("\(copy.validFrom - seconds) s left for this code: the next one is copied when it starts.")
            }
            _ = copyDueOneTimeCode()
        } catch let declined as ConsentDeclined {
            setStatus(declined.description)
        } catch {
            setStatus("Not copied: \(error)", error: true)
        }
    }

    /// Called once a second and after each key: copies a pending code that
    /// became valid. Returns true when the screen must be drawn again (a
    /// countdown is on show, or the status changed).
    func oneTimeCodeTick() -> Bool {
        if copyDueOneTimeCode() { return true }
        guard let record = selectedRecord, let summary = oneTime.summaries[record.id] else { return false }
        return summary.live || oneTime.shown?.id == record.id || oneTime.pendingCopy != nil
    }

    /// Copies the pending code when its time has come; true when it did.
    private func copyDueOneTimeCode() -> Bool {
        guard let pending = oneTime.pendingCopy, now() >= pending.validFrom else { return false }
        oneTime.pendingCopy = nil
        showCopy(clipboard.copy(Secret(utf8: pending.code.code), now: now()), of: "the one-time code of \(pending.account)")
        oneTime.shown = (pending.id, pending.code, pending.code.remaining.map { pending.validFrom.addingTimeInterval(Double($0)) })
        return true
    }

    /// Whole Unix seconds of `date` (the time a code is made for).
    static func unixSeconds(_ date: Date) -> Int64 {
        Int64(max(0, date.timeIntervalSince1970).rounded(.down))
    }

    /// `remaining` of `period` seconds as a bar of `countdownCells` cells, full when the code is new.
    static func countdownBar(remaining: Int, period: Int) -> String {
        let full = min(countdownCells, max(0, (remaining * countdownCells + period - 1) / max(1, period)))
        return String(repeating: "█", count: full) + String(repeating: "░", count: countdownCells - full)
    }

    /// A code as read aloud: 6 and 8 digits in two halves ("755 224"); others (Steam, 7, 9, 10) as they are.
    static func grouped(_ code: String) -> String {
        guard code.count == 6 || code.count == 8, code.allSatisfy(\.isNumber) else { return code }
        let half = code.index(code.startIndex, offsetBy: code.count / 2)
        return "\(code[..<half]) \(code[half...])"
    }
}
