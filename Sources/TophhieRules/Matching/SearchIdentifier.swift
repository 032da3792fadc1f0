/// One named search under `detection:` (`selection`, `filter_ok`).
///
/// A map is the AND of its entries, a list of maps is the OR of the maps, and a list of plain
/// values is a keyword search over every string in the event.
public indirect enum SearchIdentifier: Sendable, Hashable {
    case allOf([FieldCondition])
    case anyOf([SearchIdentifier])
    case keywords([WildcardPattern], requireAll: Bool)

    public func matches(_ event: any RuleEvent) -> Bool {
        switch self {
        case .allOf(let conditions):
            return conditions.allSatisfy { $0.matches(event) }
        case .anyOf(let alternatives):
            return alternatives.contains { $0.matches(event) }
        case .keywords(let patterns, let requireAll):
            let texts = event.searchableTexts()
            let found = { (pattern: WildcardPattern) in texts.contains { pattern.matches($0) } }
            return requireAll ? patterns.allSatisfy(found) : patterns.contains(where: found)
        }
    }
}
