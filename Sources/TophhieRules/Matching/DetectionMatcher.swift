/// A detection's condition held for matching many events: the searches in order, the condition
/// tree, and each event's search results remembered in two machine words.
///
/// A class, so the engine's loop reaches it without copying the rule around it (a `Detection`
/// value carries its searches by name), and the memo needs no allocation per event.
final class DetectionMatcher: Sendable {
    private let detection: Detection
    private let searches: [CompiledSearch]
    /// `searches` as the loop reads them (`Unretained`).
    private let searchRefs: [Unretained<CompiledSearch>]
    private let conditions: [Detection.Compiled]
    /// The one search the whole condition is (`condition: selection`, most rules): tested
    /// without walking the condition tree, whose walk copied its nodes for every event.
    private let onlySearch: Int?

    /// - Parameter numbering: shared by the rules matched against the same events
    ///   (`CompiledSearch`).
    init(_ detection: Detection, numbering: EntryNumbering? = nil) {
        self.detection = detection
        searches = detection.ordered.map { CompiledSearch($0, numbering: numbering) }
        searchRefs = searches.map(Unretained.init)
        conditions = detection.compiled
        if conditions.count == 1, case .search(let index) = conditions[0] { onlySearch = index } else { onlySearch = nil }
    }

    /// Whether the event satisfies any of the conditions; each search is evaluated at most once.
    /// - Parameter texts: the event's texts, shared by every rule matched against it
    ///   (`SlotTexts.next()` between events).
    func matches(_ event: any RuleEvent, _ texts: SlotTexts) -> Bool {
        if let onlySearch { return searchRefs[onlySearch].with { $0.matches(event, texts) } }
        guard searches.count <= 64 else { return detection.matches(event) }
        var known: UInt64 = 0, results: UInt64 = 0
        for condition in conditions where evaluate(condition, event, texts, &known, &results) { return true }
        return false
    }

    private func search(_ i: Int, _ event: any RuleEvent, _ texts: SlotTexts, _ known: inout UInt64, _ results: inout UInt64) -> Bool {
        let bit: UInt64 = 1 << UInt64(i)
        if known & bit != 0 { return results & bit != 0 }
        let result = searchRefs[i].with { $0.matches(event, texts) }
        known |= bit
        if result { results |= bit }
        return result
    }

    private func evaluate(_ node: Detection.Compiled, _ event: any RuleEvent, _ texts: SlotTexts, _ known: inout UInt64, _ results: inout UInt64) -> Bool {
        switch node {
        case .search(let i): return search(i, event, texts, &known, &results)
        case .not(let inner): return !evaluate(inner, event, texts, &known, &results)
        case .and(let parts):
            for part in parts where !evaluate(part, event, texts, &known, &results) { return false }
            return true
        case .or(let parts):
            for part in parts where evaluate(part, event, texts, &known, &results) { return true }
            return false
        case .atLeast(let n, let indices):
            var count = 0
            for i in indices where search(i, event, texts, &known, &results) {
                count += 1
                if count >= n { return true }
            }
            return false
        }
    }
}
