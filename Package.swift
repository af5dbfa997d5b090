// swift-tools-version:6.0
import PackageDescription

// Direction of dependency: C modules → KeyshelfCrypto → KeyshelfVault →
// KeyshelfCredentials → (KeyshelfTransfer) → KeyshelfTUI / KeyshelfCLI → keyshelf-full
// (KeyshelfCLI does not import KeyshelfTUI: main.swift wires them); `keyshelf`, the
// thin client, depends on C modules only (CSodium, CSystem) and execs keyshelf-full;
// KeyshelfCrypto → KeyshelfClipboard → KeyshelfTUI / KeyshelfCLI.
let package = Package(
    name: "keyshelf",
    targets: [
        .systemLibrary(
            name: "CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(
            name: "CCurses", pkgConfig: "ncursesw",
            providers: [.apt(["libncursesw5-dev"])]),
        .systemLibrary(
            name: "CIDN2", pkgConfig: "libidn2",
            providers: [.apt(["libidn2-dev"])]),
        // libcsv-dev ships no pkg-config file; the modulemap links "csv".
        .systemLibrary(name: "CCSV", providers: [.apt(["libcsv-dev"])]),
        .systemLibrary(
            name: "COath", pkgConfig: "liboath",
            providers: [.apt(["liboath-dev"])]),
        // libzxcvbn-dev ships no pkg-config file either; the modulemap links "zxcvbn".
        .systemLibrary(name: "CZxcvbn", providers: [.apt(["libzxcvbn-dev"])]),
        .systemLibrary(
            name: "CLibCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CArgon2", pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"])]),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        .target(name: "CSystem"),

        .target(name: "KeyshelfCrypto", dependencies: ["CSodium", "COath", "CLibCrypto", "CArgon2", "CSystem"]),
        .target(name: "KeyshelfVault", dependencies: ["KeyshelfCrypto"]),
        .target(name: "KeyshelfCredentials", dependencies: ["KeyshelfVault", "KeyshelfCrypto", "CIDN2", "CZxcvbn", "CCurl"]),
        .target(name: "KeyshelfAgent", dependencies: ["KeyshelfCredentials", "KeyshelfVault", "KeyshelfCrypto", "CSystem"]),
        // Sync of shared.vault through git (docs/sync.md).
        .target(name: "KeyshelfSync", dependencies: ["KeyshelfCredentials", "KeyshelfVault", "CSystem"]),
        .target(name: "KeyshelfTransfer", dependencies: ["KeyshelfCredentials", "KeyshelfVault", "KeyshelfCrypto", "CCSV", "CZlib"]),
        // Clipboard rules shared by the TUI's copy keys and `get --clip`.
        .target(name: "KeyshelfClipboard", dependencies: ["KeyshelfCrypto", "CSystem"]),
        .target(name: "KeyshelfTUI", dependencies: ["KeyshelfClipboard", "KeyshelfCredentials", "KeyshelfTransfer", "KeyshelfVault", "KeyshelfAgent", "KeyshelfCrypto", "CCurses"]),
        .target(name: "KeyshelfCLI", dependencies: ["KeyshelfSync", "KeyshelfClipboard", "KeyshelfCredentials", "KeyshelfTransfer", "KeyshelfVault", "KeyshelfAgent", "KeyshelfCrypto", "CSystem"]),
        // The full program, the composition root: wires the CLI to the TUI (main.swift).
        .executableTarget(name: "keyshelf-full", dependencies: ["KeyshelfCLI", "KeyshelfTUI", "KeyshelfCrypto"]),
        // The thin client users run as `keyshelf`: answers `get`, `list` and `search`
        // from an unlocked agent without Foundation, and execs keyshelf-full for
        // everything else (docs/architecture.md, "The thin client").
        .executableTarget(name: "keyshelf", dependencies: ["CSodium", "CSystem"]),
        // Child process for the vault's crash and concurrency tests.
        .executableTarget(name: "vault-stress", dependencies: ["KeyshelfVault", "KeyshelfCrypto"]),
        .executableTarget(name: "keyshelf-bench", dependencies: ["KeyshelfCredentials", "KeyshelfTransfer", "KeyshelfVault", "KeyshelfCrypto", "KeyshelfTUI"]),

        // What several test targets share (docs/testing.md): the built-product locator, the process runner and
        // its `Run`, temporary vaults, the tmux driver, screen snapshots, the "needs root" condition, loopback sites.
        .target(name: "KeyshelfTestSupport", path: "Tests/KeyshelfTestSupport"),
        .testTarget(name: "CryptoTests", dependencies: ["KeyshelfCrypto"]),
        .testTarget(name: "VaultTests", dependencies: ["KeyshelfVault", "KeyshelfCrypto", "KeyshelfTestSupport", "vault-stress"], resources: [.copy("Fixtures")]),
        .testTarget(name: "CredentialsTests", dependencies: ["KeyshelfCredentials", "KeyshelfVault", "KeyshelfCrypto", "KeyshelfTestSupport"]),
        .testTarget(name: "GitTests", dependencies: ["KeyshelfSync"]),
        .testTarget(name: "TransferTests", dependencies: ["KeyshelfTransfer", "KeyshelfCredentials", "KeyshelfVault", "KeyshelfCrypto"], resources: [.copy("Fixtures")]),
        .testTarget(name: "TUITests", dependencies: ["KeyshelfTUI", "KeyshelfTestSupport", "KeyshelfClipboard", "KeyshelfTransfer", "KeyshelfCredentials", "KeyshelfVault", "KeyshelfCrypto"]),
        .testTarget(name: "EndToEndTests", dependencies: ["keyshelf", "keyshelf-full", "KeyshelfCLI", "KeyshelfTUI", "KeyshelfCredentials", "KeyshelfVault", "KeyshelfCrypto", "KeyshelfTestSupport"]),
        .testTarget(name: "AgentTests", dependencies: ["keyshelf", "keyshelf-full", "KeyshelfTestSupport", "KeyshelfAgent", "KeyshelfCredentials", "KeyshelfVault", "KeyshelfCrypto"]),
    ]
)
