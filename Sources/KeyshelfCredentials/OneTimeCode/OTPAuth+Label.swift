extension OTPAuth {
    /// This secret with its label completed for the item it belongs to: an
    /// empty account becomes `account`, an empty issuer `issuer` (the
    /// server's display name), so a bare base32 secret or an `otpauth://` URI
    /// without a label is stored as `otpauth://TYPE/ISSUER:ACCOUNT?…` as
    /// docs/otp.md says. An account or issuer the user gave is kept.
    public func labeled(account: String, issuer: String) -> OTPAuth {
        var result = self
        if result.account.isEmpty { result.account = account }
        if result.issuer.isEmpty { result.issuer = issuer }
        return result
    }
}
