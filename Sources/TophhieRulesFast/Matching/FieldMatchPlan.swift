import TophhieJSON
import TophhieRules

/// What matching one `field|modifiers: values` entry reads, compiled once (`FieldCondition`
/// holds it): a class, so the search loop that tests it against every event reaches it through
/// one reference instead of copying the entry's strings, patterns and sets each time.
final class FieldMatchPlan: Sendable, Hashable {
    let slot: FieldSlot
    let matchers: [FieldCondition.ValueMatcher]
    let requireAll: Bool
    let negated: Bool
    let anyCased: Bool
    let exactSets: ExactSets?
    /// `matchers`, each behind a reference: reading an enum out of the array copied its payload
    /// (a pattern's pieces and text, retained and released) for every test of every event, a
    /// twelfth of a replay's reading thread.
    private let tests: [ValueTest]
    /// When every value is a number to be matched exactly (`status.errorCode: 50053`, or a
    /// short list of codes), not negated and not `|all`: those numbers. A number in the event
    /// is then answered by them alone, as the tests would answer it, without walking the tests.
    let exactNumbers: [Double]?

    /// `tests` as the loop reads them (`Unretained`).
    private let testRefs: [Unretained<ValueTest>]

    /// One of `matchers`, held where the loop reaches it without copying it. A text test's
    /// pattern and number are stored apart from the matcher: binding them out of the enum for
    /// each test copied the pattern (its pieces and text retained and released).
    private final class ValueTest: Sendable {
        enum Kind: Sendable {
            case exists(Bool)
            case null
            case text
            /// Regex, CIDR, comparison, field reference: read from `matcher`.
            case other
        }

        let kind: Kind
        let matcher: FieldCondition.ValueMatcher
        /// A text test's pattern (an empty one for other tests) and its value as a number.
        let pattern: WildcardPattern
        let number: Double?

        /// The pattern of a test that has none.
        private static let noPattern = WildcardPattern(sigma: "")

        init(_ matcher: FieldCondition.ValueMatcher) {
            self.matcher = matcher
            switch matcher {
            case .exists(let wanted): (kind, pattern, number) = (.exists(wanted), ValueTest.noPattern, nil)
            case .null: (kind, pattern, number) = (.null, ValueTest.noPattern, nil)
            case .text(let pattern, let number): (kind, self.pattern, self.number) = (.text, pattern, number)
            default: (kind, pattern, number) = (.other, ValueTest.noPattern, nil)
            }
        }
    }

    /// For a long list of exact values (no wildcard, no other modifier): the lists as sets, so a
    /// match is a lookup rather than a walk through the list.
    struct ExactSets: Sendable, Hashable {
        /// Every value's folded text.
        var texts: Set<String>
        /// The folded texts of the values written as strings (`'50053'`): a number matches them
        /// by its text; a value written as a number matches a number only by value.
        var stringTexts: Set<String>
        var numbers: Set<Double>
    }

    /// From this many exact values on, an entry matches through `exactSets`.
    static let setThreshold = 8

    /// The plan of one entry, its paths interned.
    convenience init(_ condition: FieldCondition) {
        self.init(slot: FieldSlot.intern(condition.components), matchers: condition.matchers, requireAll: condition.requireAll,
                  negated: condition.negated, anyCased: condition.anyCased,
                  exactSets: FieldMatchPlan.exactSets(condition.matchers, requireAll: condition.requireAll, negated: condition.negated, cased: condition.anyCased))
    }

    private static func exactSets(_ matchers: [ValueMatcher], requireAll: Bool, negated: Bool, cased: Bool) -> ExactSets? {
        guard matchers.count >= setThreshold, !requireAll, !negated, !cased else { return nil }
        var sets = ExactSets(texts: [], stringTexts: [], numbers: [])
        for matcher in matchers {
            guard case .text(let pattern, let number) = matcher, pattern.isExact else { return nil }
            let text = pattern.literal
            sets.texts.insert(text)
            if let number { sets.numbers.insert(number) } else { sets.stringTexts.insert(text) }
        }
        return sets
    }

    init(slot: FieldSlot, matchers: [FieldCondition.ValueMatcher], requireAll: Bool, negated: Bool, anyCased: Bool, exactSets: ExactSets?) {
        self.slot = slot
        self.matchers = matchers
        self.tests = matchers.map(ValueTest.init)
        testRefs = tests.map(Unretained.init)
        var numbers: [Double]? = negated || requireAll || matchers.isEmpty ? nil : []
        for matcher in matchers where numbers != nil {
            if case .text(let pattern, let number?) = matcher, pattern.isExact { numbers!.append(number) } else { numbers = nil }
        }
        self.exactNumbers = numbers
        self.requireAll = requireAll
        self.negated = negated
        self.anyCased = anyCased
        self.exactSets = exactSets
    }

    static func == (a: FieldMatchPlan, b: FieldMatchPlan) -> Bool {
        (a.slot, a.matchers, a.requireAll, a.negated, a.anyCased) == (b.slot, b.matchers, b.requireAll, b.negated, b.anyCased) && a.exactSets == b.exactSets
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(slot)
        hasher.combine(matchers)
        hasher.combine(requireAll)
        hasher.combine(negated)
    }

    typealias ValueMatcher = FieldCondition.ValueMatcher

    /// Whether the event satisfies this entry, reading its texts through the event's `texts`.
    func matches(_ event: any FastEvent, _ texts: SlotTexts) -> Bool {
        guard exactSets != nil else { return matchesEach(event, texts) }
        guard let value = event.field(slot: slot) else { return false }
        switch value {
        case .int, .double: return FieldMatchPlan.matches(value, exactSets!)
        default:
            if let actual = FieldCondition.number(value), exactSets!.numbers.contains(actual) { return true }
            let subjects = texts.texts(value, slot: slot, fold: true)
            for place in subjects.indices where exactSets!.texts.contains(subjects[place]) { return true }
            return false
        }
    }

    /// The same answer as walking the list: a number by value, else each text by its folded form.
    static func matches(_ value: JSONValue, _ sets: ExactSets) -> Bool {
        switch value {
        case .int, .double:
            let actual = FieldCondition.number(value)!
            // A number's text is made only when some value was written as text.
            return sets.numbers.contains(actual) || (!sets.stringTexts.isEmpty && value.scalarText.map { sets.stringTexts.contains($0.lowercased()) } == true)
        default:
            if let actual = FieldCondition.number(value), sets.numbers.contains(actual) { return true }
            return FieldCondition.texts(value).contains { sets.texts.contains($0.lowercased()) }
        }
    }

    /// Whether the event satisfies this entry, testing each value in turn (what `exactSets` speeds up).
    func matchesEach(_ event: any FastEvent, _ texts: SlotTexts) -> Bool {
        let value = event.field(slot: slot)
        // A number against exact numbers: equal to one of them, or else no match (`match`'s
        // answer for each test), without the tests' texts.
        if let exactNumbers, let value {
            switch value {
            case .int(let i): return exactNumbers.contains(Double(i))
            case .double(let d): return exactNumbers.contains(d)
            default: break
            }
        }
        return matchesByTests(value, event, texts)
    }

    /// `matchesEach` by walking the tests, without the shortcut for numbers.
    func matchesByTests(_ value: JSONValue?, _ event: any FastEvent, _ texts: SlotTexts) -> Bool {
        // The value's texts are lower-cased once for the event rather than once per pattern or
        // per rule (`SlotTexts`): a list of ten error codes folded the same string ten times.
        if negated {
            guard let value, !value.isNull else { return false }
            for test in testRefs where test.with({ match($0, value, texts, event) }) { return false }
            return true
        }
        if requireAll {
            for test in testRefs where !test.with({ match($0, value, texts, event) }) { return false }
            return true
        }
        for test in testRefs where test.with({ match($0, value, texts, event) }) { return true }
        return false
    }

    private func match(_ test: ValueTest, _ value: JSONValue?, _ texts: SlotTexts, _ event: any FastEvent) -> Bool {
        switch test.kind {
        case .exists(let wanted):
            // A JSON null is absent, as Sigma's backends and Sentinel read it.
            return (value.map { !$0.isNull } ?? false) == wanted
        case .null:
            return value?.isNull ?? true
        case .text:
            guard let value else { return false }
            if let number = test.number, let actual = FieldCondition.number(value) {
                if actual == number { return true }
                // A number against an exact number: the texts cannot agree when the numbers differ.
                if test.pattern.isExact, !value.isString { return false }
            }
            // Lower-cased when no pattern is `cased`.
            // By place: iterating the texts copied each one (a retain and a release).
            let subjects = texts.texts(value, slot: slot, fold: !anyCased)
            return anyCased
                ? subjects.indices.contains { UTF8Bytes.matches(test.pattern, subjects[$0]) }
                : subjects.indices.contains { UTF8Bytes.matches(test.pattern, folded: subjects[$0]) }
        case .other:
            return matchOther(test.matcher, value, event)
        }
    }

    /// The tests the matching loop does not meet for every event: regular expressions, CIDR
    /// blocks, comparisons and field references, answered as the plain meaning answers them.
    private func matchOther(_ matcher: ValueMatcher, _ value: JSONValue?, _ event: any FastEvent) -> Bool {
        PlainMatching.holds(matcher, value, anyCased: anyCased, event: event)
    }
}
