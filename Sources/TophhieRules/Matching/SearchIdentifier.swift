/// One named search under `detection:` (`selection`, `filter_ok`).
///
/// A map is the AND of its entries, a list of maps is the OR of the maps, and a list of plain
/// values is a keyword search over every string in the event.
public indirect enum SearchIdentifier: Sendable, Hashable {
    case allOf([FieldCondition])
    case anyOf([SearchIdentifier])
    case keywords([WildcardPattern], requireAll: Bool)

    /// The Graph paths this search reads; nil for a keyword search, which reads every string.
    var referencedPaths: [[String]]? {
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

    public func matches(_ event: any RuleEvent) -> Bool {
        let texts = SlotTexts()
        texts.next()
        return matches(event, texts)
    }

    /// Whether the event satisfies the search, reading its texts through the event's `texts`.
    func matches(_ event: any RuleEvent, _ texts: SlotTexts) -> Bool {
        switch self {
        case .allOf(let conditions):
            // By index: a closure over the elements copied each entry, strings and all.
            for index in conditions.indices where !conditions[index].matches(event, texts) { return false }
            return true
        case .anyOf(let alternatives):
            for index in alternatives.indices where alternatives[index].matches(event, texts) { return true }
            return false
        case .keywords(let patterns, let requireAll):
            let texts = event.searchableTexts()
            let found = { (pattern: WildcardPattern) in texts.contains { pattern.matches($0) } }
            return requireAll ? patterns.allSatisfy(found) : patterns.contains(where: found)
        }
    }
}
