import Foundation

// Benchmarks (release build): `swift run -c release keyshelf-bench [vault|cli|tui|import|credentials|agent|audit|otp|sync|all]`.
// Each area lives in its own file; figures go to docs/benchmarks.md.
let areas: [(name: String, run: () throws -> Void)] = [
    ("vault", runVaultBenchmarks),
    ("cli", runCLIBenchmarks),
    ("tui", runTUIBenchmarks),
    ("import", runImportBenchmarks),
    ("credentials", runCredentialsBenchmarks),
    ("agent", runAgentBenchmarks),
    ("audit", runAuditBenchmarks),
    ("otp", runOtpBenchmarks),
]
let wanted = CommandLine.arguments.dropFirst().first ?? "all"
for area in areas where wanted == "all" || wanted == area.name {
    print("== \(area.name)")
    try area.run()
}
