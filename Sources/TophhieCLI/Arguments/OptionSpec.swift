/// One option a command accepts, untyped: what parsing, help, completion and the manual page read.
public struct OptionSpec: Sendable {
    /// The long name without dashes: `top` for `--top`.
    public var name: String
    /// The placeholder for the value (`N`, `FILE`); nil for a flag that takes no value.
    public var valueName: String?
    public var help: String
    /// Whether the option may be given more than once (`--rules A --rules B`).
    public var repeatable: Bool
    /// What the value is: checked when parsing, offered when completing.
    public var kind: ValueKind

    public init(_ name: String, value: String? = nil, kind: ValueKind? = nil, repeatable: Bool = false, help: String) {
        self.name = name
        self.valueName = value
        self.help = help
        self.repeatable = repeatable
        self.kind = value == nil ? .none : (kind ?? .text)
    }
}
