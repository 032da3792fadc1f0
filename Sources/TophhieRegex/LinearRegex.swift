/// A regular expression whose matching time is linear in the text, for Sigma's `|re` modifier.
///
/// Patterns are compiled to a Thompson NFA and run by a Pike VM, as in RE2 and
/// Rust's `regex`: there is no backtracking, so a hostile value cannot stall
/// the agent, and no input is too long to search.
public struct LinearRegex: Sendable, Hashable {
    /// Sigma's `re` sub-modifiers.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int

        /// Creates options from their raw bits.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// `|re|i`: letters match under Unicode simple case folding.
        public static let ignoreCase = Options(rawValue: 1 << 0)
        /// `|re|m`: `^` and `$` also match at line breaks ("\n").
        public static let multiline = Options(rawValue: 1 << 1)
        /// `|re|s`: `.` also matches "\n".
        public static let dotMatchesNewline = Options(rawValue: 1 << 2)
    }

    /// The pattern as written in the rule.
    public let pattern: String
    /// The options the pattern was compiled with.
    public let options: Options
    private let program: RegexProgram

    /// Compiles `pattern`, refusing constructs that cannot run in linear time.
    /// - Throws: `RegexSyntaxError` naming the position and, for constructs that need backtracking, what to write instead.
    public init(_ pattern: String, options: Options = []) throws {
        self.pattern = pattern
        self.options = options
        var parser = RegexParser(
            pattern: pattern,
            flags: RegexFlags(
                ignoreCase: options.contains(.ignoreCase),
                multiline: options.contains(.multiline),
                dotMatchesNewline: options.contains(.dotMatchesNewline)))
        program = try RegexCompiler.compile(try parser.parse())
    }

    /// Whether the pattern matches anywhere in `text` (unanchored search, like Sigma backends).
    /// Time O(len(text) × len(pattern)), memory O(len(pattern)), any length, never gives up.
    public func matches(_ text: String) -> Bool {
        PikeVM(program: program).matches(text)
    }

    /// Equal when pattern and options are equal; the compiled program follows from them.
    public static func == (lhs: LinearRegex, rhs: LinearRegex) -> Bool {
        // Scalar-wise, not String's canonical equivalence: "é" and "e\u{301}" compile to different programs.
        lhs.options == rhs.options && lhs.pattern.unicodeScalars.elementsEqual(rhs.pattern.unicodeScalars)
    }

    /// Hashes pattern and options, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        for scalar in pattern.unicodeScalars {
            hasher.combine(scalar.value)
        }
        hasher.combine(options)
    }
}
