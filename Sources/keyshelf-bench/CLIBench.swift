func runCLIBenchmarks() throws {
    print("not written yet")
}
