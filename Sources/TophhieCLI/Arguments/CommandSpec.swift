/// One option a command accepts.
public struct OptionSpec: Sendable {
    /// The long name without dashes: `top` for `--top`.
    public var name: String
    /// The placeholder for the value (`N`, `FILE`); nil for a flag that takes no value.
    public var valueName: String?
    public var help: String
    /// Whether the option may be given more than once (`--rules A --rules B`).
    public var repeatable: Bool

    public init(_ name: String, value: String? = nil, repeatable: Bool = false, help: String) {
        self.name = name
        self.valueName = value
        self.help = help
        self.repeatable = repeatable
    }
}

/// What a command is called, what it takes, and the help text that explains it.
public struct CommandSpec: Sendable {
    /// The words that name it: `["profile", "set"]`.
    public var path: [String]
    public var summary: String
    /// Positional arguments as shown in the usage line (`[PATH…]`).
    public var positionals: String
    public var options: [OptionSpec]
    /// Longer text shown under the usage: behaviour, examples.
    public var discussion: String

    public init(path: [String], summary: String, positionals: String = "", options: [OptionSpec] = [], discussion: String = "") {
        self.path = path
        self.summary = summary
        self.positionals = positionals
        self.options = options
        self.discussion = discussion
    }

    public var displayName: String { (["tophhie-watch"] + path).joined(separator: " ") }
}
