import TophhieRules

/// A command line split into options and positionals against a `CommandSpec`, each value
/// checked against its option's kind. Commands read it through `ParsedOptions`, by declaration.
public struct ParsedArguments: Sendable {
    public private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    /// The names the spec declares: a read of any other is a mistake in the program.
    private let declared: Set<String>
    public private(set) var wantsHelp = false

    /// Splits `arguments` by the spec's options.
    /// - Throws: `UsageError` for an unknown option (with the nearest known one), a missing
    ///   value, a repeated single option, or a value its option does not take (naming what it takes).
    public init(_ arguments: [String], spec: CommandSpec) throws {
        let byName = Dictionary(spec.options.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        declared = Set(byName.keys)
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" { onlyPositionals = true; continue }
            if argument == "-h" || argument == "--help" { wantsHelp = true; continue }
            guard argument.hasPrefix("--") else {
                throw UsageError("unknown option '\(argument)' for '\(spec.displayName)'")
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = byName[name] else {
                let meant = NearestName.nearest(name, among: spec.options.map(\.name)).map { " (did you mean '--\($0)'?)" } ?? ""
                throw UsageError("unknown option '--\(name)' for '\(spec.displayName)'\(meant)")
            }
            if option.valueName == nil {
                if inlineValue != nil { throw UsageError("option '--\(name)' takes no value") }
                flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else {
                    throw UsageError("option '--\(name)' needs a value (\(option.valueName!))")
                }
                value = arguments[index]
                index += 1
            }
            if !option.repeatable, values[name] != nil {
                throw UsageError("option '--\(name)' was given more than once")
            }
            if !option.kind.accepts(value), let takes = option.kind.takes {
                throw UsageError("option '--\(name)' takes \(takes), not '\(value)'")
            }
            values[name, default: []].append(value)
        }
    }

    private init(declaring options: [OptionSpec]) {
        declared = Set(options.map(\.name))
    }

    /// Nothing given to options declared as `options`.
    static func none(_ options: [OptionSpec]) -> ParsedArguments { ParsedArguments(declaring: options) }

    /// The value of a declared option.
    func read<Value>(_ option: Option<Value>) -> Value {
        let name = option.spec.name
        assert(declared.contains(name), "'--\(name)' is read but not declared by the command's options")
        return option.convert(flags.contains(name) ? [""] : values[name] ?? [])
    }

    /// Whether the spec declares `option` (for what every command may or may not take: `--config`).
    func declares<Value>(_ option: Option<Value>) -> Bool { declared.contains(option.spec.name) }
}
