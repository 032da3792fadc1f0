import TophhieRules
/// Numbers the distinct field entries of a rule set's searches, so an entry several rules share
/// (`status.errorCode: 0` in four of the default pack's rules) is tested once an event
/// (`SlotTexts.entryResult`) and its answer reused by the others.
///
/// Two entries get one number only when they are equal in everything a test reads (field,
/// values, modifiers: `FieldMatchPlan`'s `==`), so the reused answer is the one a test would give.
/// Used while rules are compiled; not shared between threads.
final class EntryNumbering {
    private var numbers: [FieldMatchPlan: Int] = [:]

    init() {}

    /// How many distinct entries have been numbered.
    var count: Int { numbers.count }

    /// The number of `plan`'s entry, and the plan first given it (held in its place).
    func number(_ plan: FieldMatchPlan) -> (plan: FieldMatchPlan, number: Int) {
        if let known = numbers.index(forKey: plan) { return (numbers.keys[known], numbers.values[known]) }
        numbers[plan] = numbers.count
        return (plan, numbers.count - 1)
    }
}
