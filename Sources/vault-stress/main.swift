import Foundation
import KeyshelfCrypto
import KeyshelfVault

// Test helper for Tests/VaultTests (crash and concurrency tests); not shipped.
// The password is the first line of standard input.
//
//   vault-stress add DIR COUNT TAG   COUNT separate locked saves, each adding
//                                    one shared item with account "TAG-i"
//   vault-stress churn DIR           saves forever; save g rewrites every item of
//                                    both stores with label "g", then prints g
//   vault-stress grow DIR            saves forever; each adds one shared item with
//                                    account "n" (n = the items before it), then
//                                    prints n + 1 (mostly appendices; every 65th
//                                    save replaces the file)
//   vault-stress edit DIR            saves forever; save g (counting on from the
//                                    largest label) sets label g on shared item
//                                    g % 10 (appendices, then a compaction that
//                                    keeps the other base segments), then prints g
//   vault-stress passwd DIR          changes the master password forever, between
//                                    the stdin password and the same with "2"
//                                    appended (it opens with either), printing
//                                    the number of changes done

let args = CommandLine.arguments
guard args.count >= 3, let line = readLine(strippingNewline: true) else {
    FileHandle.standardError.write(Data("usage: vault-stress add DIR COUNT TAG | churn DIR | edit DIR | grow DIR | passwd DIR (password on stdin)\n".utf8))
    exit(2)
}
let password = Secret(utf8: line)
let directory = VaultDirectory(url: URL(fileURLWithPath: args[2], isDirectory: true))

do {
    if args[1] == "passwd" {
        let passwords = [password, Secret(utf8: line + "2")]
        var current = 0
        var session: VaultSession
        do {
            session = try directory.unlock(password: passwords[0])
        } catch let error as VaultError where error.code == .wrongPassword {
            session = try directory.unlock(password: passwords[1])
            current = 1
        }
        var changes = 0
        while true {
            current = 1 - current
            try session.changePassword(to: passwords[current], limits: nil)
            changes += 1
            FileHandle.standardOutput.write(Data("\(changes)\n".utf8))
        }
    }
    let session = try directory.unlock(password: password)
    switch args[1] {
    case "add":
        let count = Int(args[3]) ?? 0
        for i in 0..<count {
            try session.modify { contents in
                contents.shared.append(Item(account: "\(args[4])-\(i)", server: "stress.example", synchronizable: true, password: Secret(utf8: "p\(i)")))
            }
        }
    case "churn":
        var generation = Int(try session.contents().shared.first?.label ?? "0") ?? 0
        while true {
            generation += 1
            let label = String(generation)
            try session.modify { contents in
                for store in Store.allCases {
                    contents[store] = contents[store].map { item in
                        var item = item
                        item.label = label
                        item.password = Secret(utf8: "secret-\(label)")
                        return item
                    }
                }
            }
            FileHandle.standardOutput.write(Data("\(generation)\n".utf8))
        }
    case "edit":
        var generation = try session.contents().shared.prefix(10).compactMap { Int($0.label) }.max() ?? 0
        while true {
            generation += 1
            let label = String(generation)
            try session.modify { $0.shared[generation % 10].label = label }
            FileHandle.standardOutput.write(Data("\(generation)\n".utf8))
        }
    case "grow":
        while true {
            let count = try session.modify { contents in
                contents.shared.append(Item(account: String(contents.shared.count), server: "grow.example", synchronizable: true, password: Secret(utf8: "p\(contents.shared.count)")))
                return contents.shared.count
            }
            FileHandle.standardOutput.write(Data("\(count)\n".utf8))
        }
    default:
        exit(2)
    }
} catch let error as VaultError {
    FileHandle.standardError.write(Data("vault-stress: \(error)\n".utf8))
    exit(error.exitCode)
}
