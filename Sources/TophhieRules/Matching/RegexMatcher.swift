import TophhieRegex

/// A compiled `|re` pattern, matched in time linear in the value (`LinearRegex`: no
/// backtracking, so a hostile user agent cannot stall the agent, and no give-up, so a long value
/// cannot slip past a rule). Case-sensitive unless `i` (Unicode simple case folding); `m` makes
/// `^`/`$` match at lines; `s` lets `.` match newlines. Matching searches anywhere in the value,
/// as Sigma backends do.
package struct RegexMatcher: Sendable, Hashable {
    private let regex: LinearRegex
    package var pattern: String { regex.pattern }

    /// - Throws: `RuleCompileError` naming the pattern, the position and, for a construct that
    ///   needs backtracking, what to write instead.
    package init(pattern: String, ignoreCase: Bool, multiline: Bool, dotAll: Bool) throws {
        var options: LinearRegex.Options = []
        if ignoreCase { options.insert(.ignoreCase) }
        if multiline { options.insert(.multiline) }
        if dotAll { options.insert(.dotMatchesNewline) }
        do {
            regex = try LinearRegex(pattern, options: options)
        } catch let error as RegexSyntaxError {
            throw RuleCompileError("regular expression '\(pattern)' does not compile (at character \(error.offset + 1)): \(error.message)")
        }
    }

    /// Whether the pattern matches anywhere in `text`, whatever its length.
    package func matches(_ text: String) -> Bool { regex.matches(text) }
}

/// A problem found while compiling a rule's values; the loader adds the file position.
package struct RuleCompileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
