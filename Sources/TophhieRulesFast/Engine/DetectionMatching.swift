import Foundation
import TophhieRules

/// Matching sign-ins against a plan's detection rules one after another, answering one with
/// the values of one answered lately from the memo (`MatchMemo`): what `Engine.prepare` does
/// for a batch, and the engine for the events of a batch the reading thread had no time to
/// match.
struct DetectionMatching {
    private let plan: EnginePlan
    private let texts = SlotTexts()
    // The matches gathered in one list kept for the whole batch, then copied at their size:
    // a list grown from empty for each event was made two or three times over.
    private var found: [Int] = []
    // Sign-ins with the values an earlier one had get its answer (and share its list).
    private var memo: MatchMemo?

    init(_ plan: EnginePlan) {
        self.plan = plan
        found.reserveCapacity(plan.matcherRefs.count)
        memo = plan.matchKey.map(MatchMemo.init)
    }

    /// The detection rules `event` satisfies, as indices into the plan's detections, ascending.
    mutating func matches(_ event: any FastEvent) -> [Int] {
        if let known = memo?.answer(for: event) { return known }
        texts.next()
        found.removeAll(keepingCapacity: true)
        let matchers = plan.matcherRefs
        for index in matchers.indices where matchers[index].with({ $0.matches(event, texts) }) {
            found.append(index)
        }
        let matched = found.isEmpty ? [] : Array(found)
        memo?.remember(matched)
        return matched
    }
}
