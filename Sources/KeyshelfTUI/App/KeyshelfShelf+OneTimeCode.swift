import Foundation
import KeyshelfCredentials

/// One-time codes through the facade (docs/otp.md, "TUI"): the code, the
/// counter and the questions are the domain's.
extension KeyshelfShelf {
    public func oneTimeCodeSummaries() throws -> [UUID: OneTimeCodeSummary] {
        keyshelf.oneTimeCodeSummaries()
    }

    public func oneTimeCode(of record: ShelfEntry, at time: Int64, prompts: UserPrompts) throws -> OneTimeCode {
        let entry = try entry(record)
        return try asking(prompts) { try keyshelf.oneTimeCode(of: entry, at: time) }
    }

    public func oneTimeCodeToCopy(of record: ShelfEntry, at time: Int64, prompts: UserPrompts) throws -> (code: OneTimeCode, validFrom: Int64) {
        let entry = try entry(record)
        return try asking(prompts) { try keyshelf.oneTimeCodeToCopy(of: entry, at: time) }
    }
}

extension Shelf {
    /// No secrets: for shelves without one-time codes.
    public func oneTimeCodeSummaries() throws -> [UUID: OneTimeCodeSummary] { [:] }

    public func oneTimeCode(of record: ShelfEntry, at time: Int64, prompts: UserPrompts) throws -> OneTimeCode {
        throw KeychainError(.itemNotFound, "\"\(record.account)\" has no one-time-code secret")
    }

    public func oneTimeCodeToCopy(of record: ShelfEntry, at time: Int64, prompts: UserPrompts) throws -> (code: OneTimeCode, validFrom: Int64) {
        throw KeychainError(.itemNotFound, "\"\(record.account)\" has no one-time-code secret")
    }
}
