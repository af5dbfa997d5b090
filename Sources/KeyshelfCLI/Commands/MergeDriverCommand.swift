import Foundation
import KeyshelfCredentials
import KeyshelfSync
import KeyshelfVault

/// `keyshelf __merge-driver BASE OURS THEIRS`: git's merge driver for
/// `shared.vault` (`merge=keyshelf` in `.gitattributes`; docs/sync.md), not a
/// user command. git runs it in the work tree's top directory — the vault
/// directory — with three temporary files: the common ancestor, this
/// branch's version (where the result goes) and the other one. It opens
/// them with the vault's keys (the unlocked agent's, else the master
/// password from `$KEYSHELF_PASSWORD_FILE` or the terminal; a THEIRS sealed
/// under a new master password makes it adopt that one, as `keyshelf sync`
/// does, from `$KEYSHELF_NEW_PASSWORD_FILE` or the terminal), merges record by
/// record (`ItemMerge`, symmetric, so a rebase's swapped sides give the same
/// records), and seals the result over OURS. Any failure exits 1 with OURS
/// untouched, so git reports a conflict and `shared.vault` still opens.
enum MergeDriverCommand {
    static let commandName = "__merge-driver"

    /// The `merge.keyshelf.driver` value: this binary, quoted for git's shell.
    static var registration: String {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "' \(commandName) %O %A %B"
    }

    static func run(arguments: [String], context: CommandContext) -> Int32 {
        guard arguments.count == 3 else {
            context.note("merge driver: expected BASE OURS THEIRS (git passes %O %A %B)")
            return ExitCode.usage.rawValue
        }
        do {
            try merge(base: arguments[0], ours: arguments[1], theirs: arguments[2], context: context)
            return ExitCode.success.rawValue
        } catch {
            context.note("merge driver: shared.vault was not merged (\(ErrorReport.describe(error).text)); git leaves it as a conflict: undo with `git merge --abort` (or `git rebase --abort`) and run `keyshelf sync`")
            return ExitCode.failure.rawValue
        }
    }

    private static func merge(base: String, ours: String, theirs: String, context: CommandContext) throws {
        var options = SharedOptions()
        options.vault = FileManager.default.currentDirectoryPath
        let session = try VaultAccess.opener(options, context).session()
        defer { session.lock() }
        func read(_ path: String) throws -> [UInt8] {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        func open(_ bytes: [UInt8], _ name: String) throws -> [Item] {
            bytes.isEmpty ? [] : try session.openSharedCopy(bytes, name: name)
        }
        // The other branch may carry another machine's `passwd`: adopt its password first (as `keyshelf sync` does).
        let theirItems: [Item]
        do {
            theirItems = try open(read(theirs), "the other branch's shared.vault")
        } catch let error as VaultError where error.code == .changedOnDisk {
            let name = "the other branch's shared.vault"
            try SyncCommand.adoptNewPassword(try read(theirs), name: name,
                                             session: session, noAgent: false, passwordFD: nil, context)
            theirItems = try open(read(theirs), name)
        }
        let baseItems = try open(read(base), "the merge base's shared.vault")
        let ourBytes = try read(ours)
        let ourItems = try open(ourBytes, "this branch's shared.vault")
        let regressions = RollbackCheck.regressions(newer: theirItems, older: baseItems)
        guard regressions.isEmpty else {
            throw CLIError(.failure, "the other branch's shared.vault is older than the merge base (\(regressions.joined(separator: "; "))): a rollback; refused")
        }
        let sealed = try session.sealSharedCopy(ItemMerge.merge(ours: ourItems, theirs: theirItems), over: ourBytes.isEmpty ? nil : ourBytes)
        // Written beside OURS and renamed over it: a kill leaves OURS whole.
        let target = URL(fileURLWithPath: ours)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).keyshelf.\(getpid()).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: Data(sealed), attributes: [.posixPermissions: 0o600]) else {
            throw CLIError(.failure, "cannot write \(temporary.path)")
        }
        guard rename(temporary.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw CLIError(.failure, "cannot replace \(target.path): \(reason)")
        }
    }
}
