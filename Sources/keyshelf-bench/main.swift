import Foundation

// Benchmarks (release build): `swift run -c release keyshelf-bench [vault|cli|tui|import|credentials|agent|audit|otp|sync|all]`.
// Each area lives in its own file; figures go to docs/benchmarks.md.
#if DEBUG
// A debug build is several times slower (and its `keyshelf` beside it too): its figures mean nothing.
FileHandle.standardError.write(Data("""
    ************************************************************************
    WARNING: keyshelf-bench is a DEBUG build; these figures are not comparable.
    Build release: swift build -c release --static-swift-stdlib
    ************************************************************************

    """.utf8))
#endif
let areas: [(name: String, run: () throws -> Void)] = [
    ("vault", runVaultBenchmarks),
    ("cli", runCLIBenchmarks),
    ("tui", runTUIBenchmarks),
    ("import", runImportBenchmarks),
    ("credentials", runCredentialsBenchmarks),
    ("agent", runAgentBenchmarks),
    ("audit", runAuditBenchmarks),
    ("otp", runOtpBenchmarks),
    ("sync", runSyncBenchmarks),
]
let wanted = CommandLine.arguments.dropFirst().first ?? "all"
for area in areas where wanted == "all" || wanted == area.name {
    print("== \(area.name)")
    try area.run()
}
