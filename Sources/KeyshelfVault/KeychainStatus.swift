/// The Keychain `OSStatus` values keyshelf reports (DESIGN §2), so users can look them up.
///
/// The one table of statuses and their exit codes: the vault raises some
/// (`VaultError.status`), the credential layer the rest (`KeychainError`);
/// the CLI turns a status into its exit code through `exitCode` only, and
/// `tagged(_:)` is the one place that writes the `(errSecName code)` text.
public enum KeychainStatus: Int32, Sendable, CaseIterable {
    /// `errSecSuccess`.
    case success = 0
    /// `errSecItemNotFound`: no item matched the query.
    case itemNotFound = -25300
    /// `errSecDuplicateItem`: an item with the same primary key exists.
    case duplicateItem = -25299
    /// `errSecUserCanceled`: consent declined or nobody to ask.
    case userCanceled = -128
    /// `errSecAuthFailed`: the master password was wrong, or a check refused a credential.
    case authFailed = -25293
    /// `errSecParam`: an invalid argument (bad server name, empty account, …).
    case param = -50
    /// `errSecDecode`: stored data could not be decoded (damaged vault).
    case decode = -26275

    /// The process exit code for this status (DESIGN §8): 0 success, 3 not
    /// found, 4 canceled, 5 wrong master password, 6 duplicate, 2 bad
    /// parameter (usage), 7 damaged data.
    public var exitCode: Int32 {
        switch self {
        case .success: 0
        case .param: 2
        case .itemNotFound: 3
        case .userCanceled: 4
        case .authFailed: 5
        case .duplicateItem: 6
        case .decode: 7
        }
    }

    /// The Security framework constant, e.g. "errSecItemNotFound".
    public var name: String {
        switch self {
        case .success: "errSecSuccess"
        case .itemNotFound: "errSecItemNotFound"
        case .duplicateItem: "errSecDuplicateItem"
        case .userCanceled: "errSecUserCanceled"
        case .authFailed: "errSecAuthFailed"
        case .param: "errSecParam"
        case .decode: "errSecDecode"
        }
    }

    /// `text (errSecName code)`, e.g. "wrong master password (errSecAuthFailed -25293)".
    public func tagged(_ text: String) -> String { "\(text) (\(name) \(rawValue))" }
}
