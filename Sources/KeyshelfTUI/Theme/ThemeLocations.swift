import Foundation

/// Where theme files are looked up (themes/README.md, "Where themes are
/// looked up"). Everything is derived at run time from the running binary's
/// location and the environment; no path of the build machine is compiled in.
extension Theme {
    /// The folders searched for `NAME.theme`, first match wins:
    /// 1. `$KEYSHELF_THEMES` when set;
    /// 2. `../share/keyshelf/themes` beside the running binary (the
    ///    `scripts/install` layout: `PREFIX/bin/keyshelf`);
    /// 3. for a binary inside a SwiftPM `.build` folder (`scripts/keyshelf`,
    ///    `swift run`, the tests), the checkout's `themes/` beside `.build`;
    /// 4. `DIR/keyshelf/themes` for each DIR of `$XDG_DATA_DIRS`
    ///    (default `/usr/local/share:/usr/share`);
    /// 5. `$XDG_CONFIG_HOME/keyshelf/themes` (`~/.config/keyshelf/themes`).
    /// - Parameter executable: the running binary, symbolic links resolved;
    ///   by default `/proc/self/exe`.
    public static func searchPaths(environment: [String: String] = ProcessInfo.processInfo.environment,
                                   executable: URL? = runningExecutable()) -> [URL] {
        var paths: [URL] = []
        if let dir = environment["KEYSHELF_THEMES"], !dir.isEmpty { paths.append(URL(fileURLWithPath: dir)) }
        if let executable {
            let bin = executable.deletingLastPathComponent()
            paths.append(bin.deletingLastPathComponent().appendingPathComponent("share/keyshelf/themes"))
            let components = bin.pathComponents
            if let build = components.lastIndex(of: ".build") {
                let checkout = NSString.path(withComponents: Array(components[..<build]))
                paths.append(URL(fileURLWithPath: checkout).appendingPathComponent("themes"))
            }
        }
        let dataDirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        // The XDG spec: relative entries are invalid and ignored.
        for dir in dataDirs.split(separator: ":") where dir.hasPrefix("/") {
            paths.append(URL(fileURLWithPath: String(dir)).appendingPathComponent("keyshelf/themes"))
        }
        paths.append(TUIConfiguration.configDirectory(environment: environment).appendingPathComponent("themes"))
        return paths
    }

    /// The running binary with symbolic links resolved (`/proc/self/exe`), or nil.
    public static func runningExecutable() -> URL? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return URL(fileURLWithPath: target).standardizedFileURL
    }

    /// The theme names found in `searchPaths` plus the built-in `dark` and
    /// `monochrome`, sorted, each once (for shell completion of `--theme`).
    public static func names(searchPaths: [URL]) -> [String] {
        var names: Set<String> = ["dark", "monochrome"]
        for folder in searchPaths {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for file in files where file.hasSuffix(".theme") {
                let name = String(file.dropLast(".theme".count))
                // Only names `load(named:)` accepts.
                if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) { names.insert(name) }
            }
        }
        return names.sorted()
    }
}
