/// What a command says about itself apart from its options: its name, summary and help text.
public struct CommandAbout: Sendable {
    /// The words that name it: `["profile", "set"]`.
    public var path: [String]
    public var summary: String
    /// Positional arguments as shown in the usage line (`[PATH…]`).
    public var positionals: String
    /// What the positionals are, for completion (`FILE` is `.file`, `SHELL` an enumeration).
    public var positionalKind: ValueKind
    /// Longer text shown under the usage: behaviour, examples.
    public var discussion: String

    public init(path: [String], summary: String, positionals: String = "", positionalKind: ValueKind = .none, discussion: String = "") {
        self.path = path
        self.summary = summary
        self.positionals = positionals
        self.positionalKind = positionalKind
        self.discussion = discussion
    }
}

/// What a command is called, what it takes, and the help text that explains it: its `CommandAbout`
/// with the options its `Options` type declares.
public struct CommandSpec: Sendable {
    public var path: [String]
    public var summary: String
    public var positionals: String
    public var positionalKind: ValueKind
    public var options: [OptionSpec]
    public var discussion: String

    public init(_ about: CommandAbout, options: [OptionSpec]) {
        self.path = about.path
        self.summary = about.summary
        self.positionals = about.positionals
        self.positionalKind = about.positionalKind
        self.options = options
        self.discussion = about.discussion
    }

    public var displayName: String { (["tophhie-watch"] + path).joined(separator: " ") }
}
