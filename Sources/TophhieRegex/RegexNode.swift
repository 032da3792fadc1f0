/// A zero-width condition on the scalars either side of a position.
enum RegexAssertion: Sendable, Hashable {
    /// `^` without multiline, `\A`.
    case startOfText
    /// `\z`.
    case endOfText
    /// `$` without multiline, `\Z`: PCRE's rule (Sigma's declared flavour, and ICU's), end of text or before a final "\n".
    case endOfTextOrFinalNewline
    /// `^` with multiline: start of text, or after a "\n" that is not the last scalar (PCRE and ICU).
    case startOfLine
    /// `$` with multiline: end of text or before any "\n".
    case endOfLine
    /// `\b`, with ASCII word characters.
    case wordBoundary
    /// `\B`.
    case notWordBoundary
}

/// The parsed pattern. Groups, flags and greediness are resolved during parsing,
/// because none of them changes whether a match exists.
indirect enum RegexNode: Sendable, Hashable {
    case empty
    /// One scalar from the set: a literal (already case-folded if needed), a class, or `.`.
    case scalars(ScalarSet)
    case assertion(RegexAssertion)
    case concatenation([RegexNode])
    case alternation([RegexNode])
    /// `maximum == nil` means unbounded. `offset` locates the quantifier for size errors.
    case repetition(RegexNode, minimum: Int, maximum: Int?, offset: Int)

    /// Whether every match must begin at the start of the text, so the search may stop once no thread is alive.
    var isAnchoredAtStart: Bool {
        switch self {
        case .assertion(.startOfText):
            return true
        case .concatenation(let items):
            for item in items {
                if item.isAnchoredAtStart { return true }
                // Only zero-width items may precede the anchor without moving it.
                guard case .assertion = item else { return false }
            }
            return false
        case .alternation(let branches):
            return !branches.isEmpty && branches.allSatisfy(\.isAnchoredAtStart)
        case .repetition(let body, let minimum, _, _):
            return minimum > 0 && body.isAnchoredAtStart
        case .empty, .scalars, .assertion:
            return false
        }
    }
}
