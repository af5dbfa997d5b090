import Foundation

/// Dates as the TUI shows them (detail area, detail dialog).
///
/// A stored date is a raw `Double` (vault-format.md, `creationDate`), so a
/// synced or damaged vault may decode to NaN, ±∞ or ±1e300, which
/// `time_t(_:)` would trap on. Only dates in years 1–9999 are formatted;
/// any other is shown as `placeholder`.
enum DateText {
    /// Shown instead of a date that is not a finite time in years 1–9999.
    static let placeholder = "(invalid date)"
    /// 0001-01-01 00:00:00 UTC and 9999-12-31 23:59:59 UTC in seconds since
    /// 1970; a margin of one day each side keeps local time within the years.
    private static let earliest: Double = -62_135_596_800 + 86_400
    private static let latest: Double = 253_402_300_799 - 86_400

    /// `yyyy-MM-dd HH:mm` in local time, or `placeholder`.
    static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        // `contains` is false for NaN, so NaN takes the placeholder too.
        guard (earliest...latest).contains(seconds) else { return placeholder }
        var t = time_t(seconds)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return placeholder }
        return String(format: "%04d-%02d-%02d %02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min))
    }
}
