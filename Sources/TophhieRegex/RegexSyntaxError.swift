/// Why a pattern was refused, and where in it.
public struct RegexSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong and, for constructs that need backtracking, what to write instead.
    public var message: String
    /// 0-based position in the pattern, counted in Unicode scalars (characters of the pattern as written).
    public var offset: Int

    /// Creates an error for `message` at scalar `offset` of the pattern.
    public init(_ message: String, at offset: Int) {
        self.message = message
        self.offset = offset
    }

    /// The message with its position, for rule-load diagnostics.
    public var description: String {
        "regular expression error at offset \(offset): \(message)"
    }
}

extension RegexSyntaxError {
    // One wording for every refusal, so rule authors learn the reason once.
    static let backtrackingRefusal = "needs backtracking, which the agent refuses (a hostile value could stall it)"

    static func refused(_ construct: String, at offset: Int, advice: String) -> RegexSyntaxError {
        RegexSyntaxError("\(construct) \(backtrackingRefusal); \(advice)", at: offset)
    }
}
