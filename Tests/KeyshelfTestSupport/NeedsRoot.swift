import Glibc
import Testing

/// Whether the tests run as root (uid 0), as CI does.
public let isRoot = getuid() == 0

extension Trait where Self == ConditionTrait {
    /// Runs the test only as root, else skips it saying why: for tests that
    /// act as another uid (`setpriv --reuid 65534`) or give files to one (`chown`),
    /// which a normal user running `scripts/test` cannot do (README, "Tests").
    /// - Parameter reason: what needs root, e.g. "chown to uid 65534".
    public static func needsRoot(_ reason: String) -> Self {
        .enabled(if: isRoot, Comment(rawValue: "needs root: \(reason)"))
    }
}
