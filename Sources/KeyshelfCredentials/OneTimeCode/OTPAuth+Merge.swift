extension OTPAuth {
    /// The winning copy's `otpauth` for a merge of two copies of one item
    /// (`ItemMerge`): HOTP counters only grow, so when both copies hold the
    /// same HOTP secret the larger counter is kept, whichever copy won.
    /// Any other pair keeps `winner` unchanged.
    static func merged(winner: String, other: String) -> String {
        guard winner != other, !winner.isEmpty, !other.isEmpty,
              var ours = try? parse(winner), ours.kind == .hotp,
              let theirs = try? parse(other), theirs.kind == .hotp, theirs.counter > ours.counter
        else { return winner }
        var sameSecret = theirs
        sameSecret.counter = ours.counter
        guard sameSecret == ours else { return winner }
        ours.counter = theirs.counter
        return ours.uri
    }
}
