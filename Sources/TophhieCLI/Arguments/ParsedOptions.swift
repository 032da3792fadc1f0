/// A command line parsed against an `OptionGroup`: each declared option read by its property,
/// typed (`options.top` is an `Int`, `options.stream` an enumeration), and the positionals.
@dynamicMemberLookup
struct ParsedOptions<Options: OptionGroup>: Sendable {
    let arguments: ParsedArguments
    /// The declarations, to read values through.
    let declared: Options

    init(_ arguments: ParsedArguments, declared: Options = Options()) {
        self.arguments = arguments
        self.declared = declared
    }

    /// Parses `arguments` against the group's declarations alone (tests, and commands that pass
    /// a group on).
    /// - Throws: `UsageError` as `ParsedArguments` does.
    init(parsing arguments: [String], path: [String] = []) throws {
        let spec = CommandSpec(CommandAbout(path: path, summary: ""), options: Options.declarations)
        self.init(try ParsedArguments(arguments, spec: spec))
    }

    /// The options given to nothing: every value its default.
    static var none: Self { Self(ParsedArguments.none(Options.declarations)) }

    var positionals: [String] { arguments.positionals }

    subscript<Value>(dynamicMember option: KeyPath<Options, Option<Value>>) -> Value {
        arguments.read(declared[keyPath: option])
    }

    subscript<Group: OptionGroup>(dynamicMember group: KeyPath<Options, Group>) -> ParsedOptions<Group> {
        ParsedOptions<Group>(arguments, declared: declared[keyPath: group])
    }

    /// The value of one of the group's options made from a table (`profile set`'s fields).
    subscript<Value>(_ option: Option<Value>) -> Value {
        arguments.read(option)
    }
}
