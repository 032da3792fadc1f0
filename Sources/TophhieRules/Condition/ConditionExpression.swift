/// A parsed Sigma `condition`: search identifiers joined by `and`, `or`, `not` and quantifiers.
package indirect enum ConditionExpression: Sendable, Hashable, CustomStringConvertible {
    case identifier(String)
    case not(ConditionExpression)
    case and([ConditionExpression])
    case or([ConditionExpression])
    /// `1 of sel*`, `all of them`, `2 of filter_*`: at least `count` (or every one) of the
    /// identifiers the pattern names.
    case quantified(ConditionQuantifier, ConditionTarget)

    public var description: String {
        switch self {
        case .identifier(let name): return name
        case .not(let inner): return "not \(inner.parenthesised)"
        case .and(let parts): return parts.map(\.parenthesised).joined(separator: " and ")
        case .or(let parts): return parts.map(\.parenthesised).joined(separator: " or ")
        case .quantified(let q, let t): return "\(q) of \(t)"
        }
    }

    private var parenthesised: String {
        switch self {
        case .and, .or: return "(\(description))"
        default: return description
        }
    }
}

/// How many of a quantifier's identifiers must hold.
package enum ConditionQuantifier: Sendable, Hashable, CustomStringConvertible {
    case atLeast(Int)
    case all

    public var description: String {
        switch self {
        case .atLeast(let n): return String(n)
        case .all: return "all"
        }
    }
}

/// What a quantifier ranges over: every identifier (`them`) or those matching a `*` pattern.
package enum ConditionTarget: Sendable, Hashable, CustomStringConvertible {
    case them
    case pattern(String)

    public var description: String {
        switch self {
        case .them: return "them"
        case .pattern(let p): return p
        }
    }

    /// The identifiers this target names, in sorted order.
    ///
    /// `them` skips identifiers starting with `_`; so does a pattern, unless it starts with `_`
    /// itself (pySigma's reading of the spec).
    public func resolve(in identifiers: [String]) -> [String] {
        switch self {
        case .them:
            return identifiers.filter { !$0.hasPrefix("_") }.sorted()
        case .pattern(let pattern):
            let wildcard = WildcardPattern(sigma: pattern, caseSensitive: true, escapes: false)
            return identifiers.filter { name in
                (pattern.hasPrefix("_") || !name.hasPrefix("_")) && wildcard.matches(name)
            }.sorted()
        }
    }
}
