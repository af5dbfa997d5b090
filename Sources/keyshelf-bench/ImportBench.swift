func runImportBenchmarks() throws {
    print("not written yet")
}
