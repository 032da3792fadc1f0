import Foundation

/// A compiled `|re` pattern. Case-sensitive unless `i`; `m` makes `^`/`$` match at lines; `s`
/// lets `.` match newlines. Matching searches anywhere in the value, as Sigma backends do.
public final class RegexMatcher: @unchecked Sendable, Hashable {
    // NSRegularExpression is immutable after creation and documented thread-safe for matching,
    // so sharing one instance across tasks is sound.
    private let regex: NSRegularExpression
    public let pattern: String
    public let flags: String

    /// - Throws: a message naming the pattern when it does not compile.
    public init(pattern: String, ignoreCase: Bool, multiline: Bool, dotAll: Bool) throws {
        var options: NSRegularExpression.Options = []
        if ignoreCase { options.insert(.caseInsensitive) }
        if multiline { options.insert(.anchorsMatchLines) }
        if dotAll { options.insert(.dotMatchesLineSeparators) }
        do {
            regex = try NSRegularExpression(pattern: pattern, options: options)
        } catch {
            throw RuleCompileError("regular expression '\(pattern)' does not compile")
        }
        self.pattern = pattern
        self.flags = (ignoreCase ? "i" : "") + (multiline ? "m" : "") + (dotAll ? "s" : "")
    }

    public func matches(_ text: String) -> Bool {
        regex.firstMatch(in: text, options: [], range: NSRange(text.startIndex..., in: text)) != nil
    }

    public static func == (a: RegexMatcher, b: RegexMatcher) -> Bool { a.pattern == b.pattern && a.flags == b.flags }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(pattern)
        hasher.combine(flags)
    }
}

/// A problem found while compiling a rule's values; the loader adds the file position.
public struct RuleCompileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
