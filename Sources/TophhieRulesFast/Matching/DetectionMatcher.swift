import TophhieRules
/// A detection's condition held for matching many events: the searches in order, the condition
/// tree, and each event's search results remembered in two machine words.
///
/// A class, so the engine's loop reaches it without copying the rule around it (a `Detection`
/// value carries its searches by name), and the memo needs no allocation per event.
///
/// Unchecked Sendable: its tables (the flat condition steps among them) are written once, in
/// `init`, and only read after.
final class DetectionMatcher: @unchecked Sendable {
    private let detection: Detection
    private let searches: [CompiledSearch]
    /// `searches` as the loop reads them (`Unretained`).
    private let searchRefs: [Unretained<CompiledSearch>]
    /// The condition trees laid out flat (`Step`), read through pointers: walking the tree's
    /// enum copied each node's list of parts (retained and released) for every event.
    private let steps: UnsafeMutableBufferPointer<Step>
    private let operands: UnsafeMutableBufferPointer<Int32>
    /// Each condition's root step.
    private let roots: UnsafeMutableBufferPointer<Int32>
    /// The one search the whole condition is (`condition: selection`, most rules): tested
    /// without walking the condition tree, whose walk copied its nodes for every event.
    private let onlySearch: Int?

    /// - Parameter numbering: shared by the rules matched against the same events
    ///   (`CompiledSearch`).
    init(_ detection: Detection, numbering: EntryNumbering? = nil) {
        self.detection = detection
        searches = detection.ordered.map { CompiledSearch($0, numbering: numbering) }
        searchRefs = searches.map(Unretained.init)
        let conditions = detection.compiled
        if conditions.count == 1, case .search(let index) = conditions[0] { onlySearch = index } else { onlySearch = nil }
        var steps: [Step] = [], operands: [Int32] = []
        // A node's operands side by side after its children's steps: `and`, `or` and `not` name
        // steps, `atLeast` names searches.
        func lay(_ node: Detection.Compiled) -> Int32 {
            let step: Step
            switch node {
            case .search(let i):
                step = Step(kind: .search, value: Int32(i), first: 0, count: 0)
            case .not(let inner):
                let child = lay(inner)
                step = Step(kind: .not, value: 0, first: Int32(operands.count), count: 1)
                operands.append(child)
            case .and(let parts), .or(let parts):
                let children = parts.map(lay)
                if case .and = node {
                    step = Step(kind: .and, value: 0, first: Int32(operands.count), count: Int32(children.count))
                } else {
                    step = Step(kind: .or, value: 0, first: Int32(operands.count), count: Int32(children.count))
                }
                operands += children
            case .atLeast(let n, let indices):
                step = Step(kind: .atLeast, value: Int32(n), first: Int32(operands.count), count: Int32(indices.count))
                operands += indices.map(Int32.init)
            }
            steps.append(step)
            return Int32(steps.count - 1)
        }
        let roots = conditions.map(lay)
        self.steps = .copying(steps)
        self.operands = .copying(operands)
        self.roots = .copying(roots)
    }

    deinit {
        steps.deallocate()
        operands.deallocate()
        roots.deallocate()
    }

    /// One node of a condition tree: a search, or an operator over `count` operands from
    /// `first` in `operands` (`value`: the search, or `atLeast`'s least).
    private struct Step {
        enum Kind { case search, not, and, or, atLeast }
        let kind: Kind
        let value: Int32
        let first: Int32
        let count: Int32
    }

    /// Whether the event satisfies any of the conditions; each search is evaluated at most once.
    /// - Parameter texts: the event's texts, shared by every rule matched against it
    ///   (`SlotTexts.next()` between events).
    func matches(_ event: any FastEvent, _ texts: SlotTexts) -> Bool {
        if let onlySearch { return searchRefs[onlySearch].with { $0.matches(event, texts) } }
        guard searches.count <= 64 else { return detection.matches(event) }
        var known: UInt64 = 0, results: UInt64 = 0
        for root in roots where evaluate(Int(root), event, texts, &known, &results) { return true }
        return false
    }

    private func search(_ i: Int, _ event: any FastEvent, _ texts: SlotTexts, _ known: inout UInt64, _ results: inout UInt64) -> Bool {
        let bit: UInt64 = 1 << UInt64(i)
        if known & bit != 0 { return results & bit != 0 }
        let result = searchRefs[i].with { $0.matches(event, texts) }
        known |= bit
        if result { results |= bit }
        return result
    }

    private func evaluate(_ index: Int, _ event: any FastEvent, _ texts: SlotTexts, _ known: inout UInt64, _ results: inout UInt64) -> Bool {
        let step = steps[index]
        let operands = Int(step.first)..<Int(step.first + step.count)
        switch step.kind {
        case .search: return search(Int(step.value), event, texts, &known, &results)
        case .not: return !evaluate(Int(self.operands[operands.lowerBound]), event, texts, &known, &results)
        case .and:
            for k in operands where !evaluate(Int(self.operands[k]), event, texts, &known, &results) { return false }
            return true
        case .or:
            for k in operands where evaluate(Int(self.operands[k]), event, texts, &known, &results) { return true }
            return false
        case .atLeast:
            var count = 0
            for k in operands where search(Int(self.operands[k]), event, texts, &known, &results) {
                count += 1
                if count >= Int(step.value) { return true }
            }
            return false
        }
    }
}
