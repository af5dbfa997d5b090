import Foundation

/// Finds the executables `swift build` made, for tests that run the real programs.
public enum BuiltProduct {
    /// The `keyshelf` executable, the thin client (it runs `keyshelf-full`
    /// from its own directory for most commands): `$KEYSHELF_BINARY` when set (to test an
    /// installed or release build), else the one built next to the test bundle,
    /// else `.build/debug/keyshelf` of this checkout (which may not exist: the
    /// run then fails saying so).
    public static let keyshelf: URL = {
        if let path = ProcessInfo.processInfo.environment["KEYSHELF_BINARY"] {
            return URL(fileURLWithPath: path)
        }
        return named("keyshelf") ?? checkout.appendingPathComponent(".build/debug/keyshelf")
    }()

    /// The executable product `name` from the build folder that holds the
    /// running test bundle, or nil when it is not built.
    /// - Parameter name: the product name, e.g. `vault-stress`.
    public static func named(_ name: String) -> URL? {
        var folders: [URL] = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        folders += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        // The runner may sit inside a bundle (`…/debug/X.xctest/…`): look up a few levels.
        for folder in folders {
            var dir = folder
            for _ in 0..<4 {
                let candidate = dir.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                dir = dir.deletingLastPathComponent()
            }
        }
        return nil
    }

    /// The package's top folder (this file is `Tests/KeyshelfTestSupport/BuiltProduct.swift`).
    static let checkout = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
