/// A search held for matching many events: its entries' plans behind references, so testing an
/// entry reaches it in place, where reading it out of a `SearchIdentifier`'s array copied it
/// whole (names, patterns, sets retained and released) for every event.
final class CompiledSearch: Sendable {
    private enum Shape: Sendable {
        /// Each entry with its number (`EntryNumbering`), or -1 when its answer is not shared.
        case allOf([(plan: FieldMatchPlan, number: Int)])
        case anyOf([CompiledSearch])
        case keywords(SearchIdentifier)
    }

    private let shape: Shape

    /// - Parameter numbering: numbers the entries, so rules sharing one test it once an event;
    ///   nil leaves every entry to be tested on its own.
    init(_ search: SearchIdentifier, numbering: EntryNumbering? = nil) {
        switch search {
        case .allOf(let conditions):
            shape = .allOf(conditions.map { condition in numbering?.number(condition.plan) ?? (condition.plan, -1) })
        case .anyOf(let alternatives): shape = .anyOf(alternatives.map { CompiledSearch($0, numbering: numbering) })
        case .keywords: shape = .keywords(search)
        }
    }

    /// `SearchIdentifier.matches(_:_:)`: the same answer.
    func matches(_ event: any RuleEvent, _ texts: SlotTexts) -> Bool {
        switch shape {
        case .allOf(let entries):
            for entry in entries {
                let holds = entry.number < 0 ? entry.plan.matches(event, texts)
                    : texts.entryResult(entry.number) { entry.plan.matches(event, texts) }
                if !holds { return false }
            }
            return true
        case .anyOf(let alternatives):
            for alternative in alternatives where alternative.matches(event, texts) { return true }
            return false
        case .keywords(let search):
            return search.matches(event, texts)
        }
    }
}
