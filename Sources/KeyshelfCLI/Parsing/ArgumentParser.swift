/// The arguments of one command after parsing: flags that were given,
/// option values by their long name, and positionals in order.
struct ParsedArguments: Sendable, Equatable {
    var flags: Set<String> = []
    var values: [String: String] = [:]
    var positionals: [String] = []
    /// `--help` or `-h` appeared before `--`.
    var helpRequested = false

    /// Whether the flag with long name `key` (e.g. "--json") was given.
    func has(_ key: String) -> Bool { flags.contains(key) }

    /// The value of the option with long name `key` (e.g. "--count"), if given.
    func value(_ key: String) -> String? { values[key] }
}

/// A small command-line parser: `--name value`, `--name=value`, flags,
/// positionals, and `--` to end options. Anything unknown is a `UsageError`.
enum ArgumentParser {
    /// Parses `arguments` (without the program and command words) against `spec`.
    /// - Throws: `UsageError` for an unknown option, a missing value, a value
    ///   given to a flag, an option that takes a value given twice (under any
    ///   of its spellings), or too few / too many positional arguments.
    static func parse(_ arguments: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                result.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "--help" || argument == "-h" {
                result.helpRequested = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = spec.option(named: name) else {
                let known = spec.options.flatMap(\.names).filter { $0.hasPrefix("--") } + ["--help"]
                let hint = Suggestion.nearest(to: name, among: known).map { "; did you mean '\($0)'?" } ?? ""
                throw UsageError("unknown option '\(name)' for '\(spec.invocation)'\(hint)", command: spec.name)
            }
            if option.takesValue {
                // Taking the last of two values would silently drop the other
                // (`--vault a --vault b`): a repeat is a usage error.
                if result.values[option.key] != nil {
                    throw UsageError("option '\(option.spelling)' is given more than once", command: spec.name)
                }
                if let inlineValue {
                    result.values[option.key] = inlineValue
                } else if index < arguments.count {
                    result.values[option.key] = arguments[index]
                    index += 1
                } else {
                    throw UsageError("option '\(name)' needs a value (\(option.valueName!))", command: spec.name)
                }
            } else {
                if inlineValue != nil {
                    throw UsageError("option '\(name)' takes no value", command: spec.name)
                }
                result.flags.insert(option.key)
            }
        }
        if result.helpRequested { return result }
        let required = spec.positionals.filter { !$0.optional }.count
        if result.positionals.count < required {
            let missing = spec.positionals[result.positionals.count].name
            throw UsageError("missing argument \(missing)", command: spec.name)
        }
        if result.positionals.count > spec.positionals.count {
            let extra = result.positionals[spec.positionals.count]
            throw UsageError("unexpected argument '\(extra)'", command: spec.name)
        }
        return result
    }

    /// Reads a non-negative integer option value.
    /// - Throws: `UsageError` quoting the value when it is not a number in `range`.
    static func integer(_ text: String, option: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("option '\(option)' expects a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }
}
