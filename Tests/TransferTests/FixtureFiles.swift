import Foundation

/// Paths of the CSV files under Tests/TransferTests/Fixtures.
enum FixtureFiles {
    static func path(_ name: String) -> String {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent(name).path
    }
}
