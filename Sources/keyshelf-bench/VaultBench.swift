func runVaultBenchmarks() throws {
    print("not written yet")
}
