import Foundation
import Testing
@testable import KeyshelfTransfer

/// Symbolic links in a pass store are reported, never silently left out (docs/import.md, "pass").
@Suite struct PassStoreLinkTests {
    @Test func everySymlinkIsReportedAsSkipped() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("keyshelf-passlinks-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = root.appendingPathComponent("store")
        let manager = FileManager.default
        try manager.createDirectory(at: store.appendingPathComponent("Work"), withIntermediateDirectories: true)
        try manager.createDirectory(at: root.appendingPathComponent("outdir"), withIntermediateDirectories: true)
        try Data("test@example.invalid\n".utf8).write(to: store.appendingPathComponent(".gpg-id"))
        try Data().write(to: root.appendingPathComponent("outside.gpg"))
        try Data().write(to: root.appendingPathComponent("outdir/inner.gpg"))
        try manager.createSymbolicLink(atPath: store.appendingPathComponent("linked.gpg").path, withDestinationPath: "../outside.gpg")
        try manager.createSymbolicLink(atPath: store.appendingPathComponent("dirlink").path, withDestinationPath: "../outdir/")
        try manager.createSymbolicLink(atPath: store.appendingPathComponent("Work/inside.gpg").path, withDestinationPath: "../linked.gpg")
        let source = try PassStoreReader.read(directory: store.path)
        #expect(source.rowCount == 3)
        #expect(source.skipped.map(\.title) == ["Work/inside.gpg", "dirlink", "linked.gpg"])
        #expect(source.skipped.allSatisfy { $0.reason == PassStoreReader.symlinkSkipped })
        #expect(source.skipped.map(ImportReport.describe).first == "\"Work/inside.gpg\": \(PassStoreReader.symlinkSkipped)")
    }
}
