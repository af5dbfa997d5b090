func runTUIBenchmarks() throws {
    print("not written yet")
}
