/// A search held for matching many events: its entries' plans behind references, so testing an
/// entry reaches it in place, where reading it out of a `SearchIdentifier`'s array copied it
/// whole (names, patterns, sets retained and released) for every event.
final class CompiledSearch: Sendable {
    private enum Shape: Sendable {
        case allOf([FieldMatchPlan])
        case anyOf([CompiledSearch])
        case keywords(SearchIdentifier)
    }

    private let shape: Shape

    init(_ search: SearchIdentifier) {
        switch search {
        case .allOf(let conditions): shape = .allOf(conditions.map(\.plan))
        case .anyOf(let alternatives): shape = .anyOf(alternatives.map(CompiledSearch.init))
        case .keywords: shape = .keywords(search)
        }
    }

    /// `SearchIdentifier.matches(_:_:)`: the same answer.
    func matches(_ event: any RuleEvent, _ texts: SlotTexts) -> Bool {
        switch shape {
        case .allOf(let plans):
            for plan in plans where !plan.matches(event, texts) { return false }
            return true
        case .anyOf(let alternatives):
            for alternative in alternatives where alternative.matches(event, texts) { return true }
            return false
        case .keywords(let search):
            return search.matches(event, texts)
        }
    }
}
