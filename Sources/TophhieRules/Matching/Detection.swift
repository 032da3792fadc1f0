/// A rule's `detection:` block: named searches and the condition that combines them.
package struct Detection: Sendable, Hashable {
    public var searches: [String: SearchIdentifier]
    /// One or more conditions; a list in the rule means any of them.
    public var conditions: [ConditionExpression]
    package let names: [String]
    /// The searches in `names` order, so evaluation indexes instead of hashing names.
    package let ordered: [SearchIdentifier]
    /// `conditions` with their identifiers resolved to places in `names`.
    package let compiled: [Compiled]

    package indirect enum Compiled: Sendable, Hashable {
        case search(Int)
        case not(Compiled)
        case and([Compiled])
        case or([Compiled])
        case atLeast(Int, [Int])
    }

    /// Builds a detection, resolving identifiers and quantifier patterns.
    /// - Throws: `RuleCompileError` naming an identifier or pattern that matches no search.
    public init(searches: [String: SearchIdentifier], conditions: [ConditionExpression]) throws {
        self.searches = searches
        self.conditions = conditions
        let names = searches.keys.sorted()
        self.names = names
        self.ordered = names.map { searches[$0]! }
        let index = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        func compile(_ expression: ConditionExpression) throws -> Compiled {
            switch expression {
            case .identifier(let name):
                guard let i = index[name] else {
                    throw RuleCompileError("condition names '\(name)', which is not a search identifier under 'detection' (have: \(names.joined(separator: ", ")))")
                }
                return .search(i)
            case .not(let inner): return .not(try compile(inner))
            case .and(let parts): return .and(try parts.map(compile))
            case .or(let parts): return .or(try parts.map(compile))
            case .quantified(let quantifier, let target):
                let matched = target.resolve(in: names)
                if matched.isEmpty {
                    throw RuleCompileError("'\(quantifier) of \(target)' matches no search identifier (have: \(names.joined(separator: ", ")))")
                }
                let indices = matched.map { index[$0]! }
                switch quantifier {
                case .all: return .atLeast(indices.count, indices)
                case .atLeast(let n):
                    // "3 of sel*" with two matching identifiers can never hold; say so at load time.
                    guard n <= indices.count else {
                        throw RuleCompileError("'\(n) of \(target)' can never hold: only \(indices.count) identifier(s) match")
                    }
                    return .atLeast(n, indices)
                }
            }
        }
        self.compiled = try conditions.map(compile)
    }

    /// Whether the event satisfies any of the conditions (`PlainMatching`).
    public func matches(_ event: any RuleEvent) -> Bool { PlainMatching.matches(self, event) }
}
