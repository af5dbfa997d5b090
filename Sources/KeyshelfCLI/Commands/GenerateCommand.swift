import KeyshelfCredentials
import KeyshelfVault

/// `keyshelf generate [--count N]`: prints Shared Web Credentials passwords
/// (`xxx-xxx-xxx-xxx`, DESIGN §3), one per line. Needs no vault.
struct GenerateCommand: Command {
    static let spec = CommandSpec(
        name: "generate", summary: "print strong passwords (xxx-xxx-xxx-xxx); needs no vault",
        options: [.value("--count", "-n", valueName: "N", help: "how many passwords (1–10000, default 1)")])

    var count = 1

    init(_ arguments: ParsedArguments) throws(UsageError) {
        if let text = arguments.value("--count") {
            count = try ArgumentParser.integer(text, option: "--count", in: 1...10_000)
        }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        for _ in 0..<count {
            RecordOutput.printPassword(PasswordGenerator.generate(), context)
        }
        return .success
    }
}
