/// One named search under `detection:` (`selection`, `filter_ok`).
///
/// A map is the AND of its entries, a list of maps is the OR of the maps, and a list of plain
/// values is a keyword search over every string in the event.
package indirect enum SearchIdentifier: Sendable, Hashable {
    case allOf([FieldCondition])
    case anyOf([SearchIdentifier])
    case keywords([WildcardPattern], requireAll: Bool)

    /// The Graph paths this search reads; nil for a keyword search, which reads every string.
    package var referencedPaths: [[String]]? {
        switch self {
        case .allOf(let conditions): return conditions.flatMap(\.referencedPaths)
        case .anyOf(let alternatives):
            var paths: [[String]] = []
            for alternative in alternatives {
                guard let inner = alternative.referencedPaths else { return nil }
                paths += inner
            }
            return paths
        case .keywords: return nil
        }
    }

    /// Whether the event satisfies the search (`PlainMatching`).
    public func matches(_ event: any RuleEvent) -> Bool { PlainMatching.matches(self, event) }
}
