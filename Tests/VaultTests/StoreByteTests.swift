import Foundation
import Testing
import KeyshelfCrypto
@testable import KeyshelfVault

/// One vault file copied over the other (`cp local.vault shared.vault`):
/// both are sealed under the same password key, so the copy authenticates;
/// only the header's store byte (byte 10) catches it (issue 20 item 5).
@Suite struct StoreByteTests {
    @Test(arguments: [(Store.local, Store.shared), (.shared, .local)])
    func aFileCopiedOverTheOtherIsRefusedAndLeftAlone(source: Store, target: Store) throws {
        let vault = try OpenFailureTests.smallVault()
        defer { vault.cleanUp() }
        let copied = try readBytes(vault.file(source))
        try writeBytes(copied, to: vault.file(target))
        let error = OpenFailureTests.failedOpen(vault)
        #expect(error?.code == .damaged, "opened: the local …ThisDeviceOnly item would list as shared")
        #expect(error?.file == vault.file(target))
        #expect(error?.reason.contains("holds another store than its name says") == true, "\(String(describing: error))")
        #expect(error?.exitCode == 7)
        #expect(try readBytes(vault.file(target)) == copied)
    }
}
