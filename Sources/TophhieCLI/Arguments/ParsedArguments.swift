/// A command line split into options and positionals against a `CommandSpec`.
public struct ParsedArguments: Sendable {
    public private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    public private(set) var wantsHelp = false

    /// Splits `arguments` by the spec's options.
    /// - Throws: `UsageError` for an unknown option, a missing value, or a repeated single option.
    public init(_ arguments: [String], spec: CommandSpec) throws {
        let byName = Dictionary(spec.options.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
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
                throw UsageError("unknown option '--\(name)' for '\(spec.displayName)'")
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
            values[name, default: []].append(value)
        }
    }

    /// The single value of `--name`, if given.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable `--name`, in order.
    public func values(_ name: String) -> [String] { values[name] ?? [] }

    /// Whether the flag `--name` was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// `--name` as a whole number within `range`.
    /// - Throws: `UsageError` naming the option when it is not a number or out of range.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("option '--\(name)' takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }
}
