import TophhieRules
/// A search held for matching many events: its entries' plans behind references, so testing an
/// entry reaches it in place, where reading it out of a `SearchIdentifier`'s array copied it
/// whole (names, patterns, sets retained and released) for every event.
///
/// Its parts are stored side by side rather than as an enum's payloads: reading a payload out
/// of the enum copied it (its array retained and released) for every event.
final class CompiledSearch: Sendable {
    private enum Shape: Sendable {
        case allOf
        case anyOf
        case keywords
    }

    private let shape: Shape
    /// `allOf`: each entry with its number (`EntryNumbering`), or -1 when its answer is not shared.
    private let entries: [(plan: FieldMatchPlan, number: Int)]
    /// `entries` as the loop reads them (`Unretained`); `entries` keeps the plans alive.
    private let entryRefs: [(plan: Unretained<FieldMatchPlan>, number: Int)]
    /// `anyOf`: the alternatives.
    private let alternatives: [CompiledSearch]
    private let alternativeRefs: [Unretained<CompiledSearch>]
    /// `keywords`: the search itself.
    private let keywords: SearchIdentifier?

    /// - Parameter numbering: numbers the entries, so rules sharing one test it once an event;
    ///   nil leaves every entry to be tested on its own.
    init(_ search: SearchIdentifier, numbering: EntryNumbering? = nil) {
        var entries: [(plan: FieldMatchPlan, number: Int)] = []
        var alternatives: [CompiledSearch] = []
        var keywords: SearchIdentifier?
        switch search {
        case .allOf(let conditions):
            shape = .allOf
            entries = conditions.map { condition in
                let plan = FieldMatchPlan(condition)
                return numbering?.number(plan) ?? (plan, -1)
            }
        case .anyOf(let options):
            shape = .anyOf
            alternatives = options.map { CompiledSearch($0, numbering: numbering) }
        case .keywords:
            shape = .keywords
            keywords = search
        }
        self.entries = entries
        self.alternatives = alternatives
        entryRefs = entries.map { (Unretained($0.plan), $0.number) }
        alternativeRefs = alternatives.map(Unretained.init)
        self.keywords = keywords
    }

    /// `SearchIdentifier.matches(_:_:)`: the same answer.
    func matches(_ event: any FastEvent, _ texts: SlotTexts) -> Bool {
        switch shape {
        case .allOf:
            for entry in entryRefs {
                let holds: Bool
                if entry.number < 0 {
                    holds = entry.plan.with { $0.matches(event, texts) }
                } else if let known = texts.entryResult(entry.number) {
                    holds = known
                } else {
                    holds = entry.plan.with { $0.matches(event, texts) }
                    texts.record(holds, entry: entry.number)
                }
                if !holds { return false }
            }
            return true
        case .anyOf:
            for alternative in alternativeRefs where alternative.with({ $0.matches(event, texts) }) { return true }
            return false
        case .keywords:
            // The plain meaning: a keyword search reads every string of the event.
            return keywords!.matches(event)
        }
    }
}
