extension OneTimeCode {
    /// A TOTP code with fewer seconds than this left is not copied; the next
    /// one is, once valid (issue 16 item 2: there would be no time to paste it).
    public static let minimumSecondsToCopy = 5
}

extension OTPAuth {
    /// The Unix second from which the code to copy at `time` is valid:
    /// `time` itself, or for TOTP the next period's start when fewer than
    /// `OneTimeCode.minimumSecondsToCopy` seconds are left (fewer than the
    /// whole period when the period is shorter, so a 1 s period never waits).
    /// HOTP codes do not expire: always `time`. When the next period would
    /// start after `Int64.max` there is no next code: `time` (no overflow trap).
    /// - Parameter time: Unix time in seconds, not negative.
    public func copyTime(at time: Int64) -> Int64 {
        guard kind == .totp else { return time }
        let step = Int64(period)
        let remaining = step - time % step
        guard remaining < min(Int64(OneTimeCode.minimumSecondsToCopy), step) else { return time }
        let (next, overflow) = time.addingReportingOverflow(remaining)
        return overflow ? time : next
    }
}
