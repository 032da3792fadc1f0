import TophhieJSON

/// What a detection means, written plainly: the condition over the searches, each search over
/// its entries, each entry over the value at its Graph path. No memo, no sets, no slots: the
/// fast matchers (`DetectionMatcher`, `FieldMatchPlan`, `MatchMemo`) must give these answers.
package enum PlainMatching {
    /// Whether `event` satisfies any of the detection's conditions.
    static func matches(_ detection: Detection, _ event: any RuleEvent) -> Bool {
        let names = detection.searches.keys.sorted()
        func holds(_ expression: ConditionExpression) -> Bool {
            switch expression {
            case .identifier(let name):
                return detection.searches[name].map { matches($0, event) } ?? false
            case .not(let inner): return !holds(inner)
            case .and(let parts): return parts.allSatisfy(holds)
            case .or(let parts): return parts.contains(where: holds)
            case .quantified(let quantifier, let target):
                let named = target.resolve(in: names)
                let holding = named.filter { matches(detection.searches[$0]!, event) }.count
                switch quantifier {
                case .all: return holding == named.count
                case .atLeast(let least): return holding >= least
                }
            }
        }
        return detection.conditions.contains(where: holds)
    }

    /// A map is the AND of its entries, a list of maps the OR of the maps, a list of plain
    /// values a keyword search over every string of the event.
    static func matches(_ search: SearchIdentifier, _ event: any RuleEvent) -> Bool {
        switch search {
        case .allOf(let entries): return entries.allSatisfy { matches($0, event) }
        case .anyOf(let alternatives): return alternatives.contains { matches($0, event) }
        case .keywords(let patterns, let requireAll):
            let texts = event.keywordTexts()
            let found = { (pattern: WildcardPattern) in texts.contains { pattern.matches($0) } }
            return requireAll ? patterns.allSatisfy(found) : patterns.contains(where: found)
        }
    }

    /// One `field|modifiers: values` entry: any value holds (every one with `|all`); with
    /// `|neq`, a present non-null value that none of them holds for.
    static func matches(_ entry: FieldCondition, _ event: any RuleEvent) -> Bool {
        let value = event.field(at: entry.components)
        let tests = entry.matchers.map { holds($0, value, anyCased: entry.anyCased, event: event) }
        if entry.negated {
            guard let value, !value.isNull else { return false }
            return !tests.contains(true)
        }
        return entry.requireAll ? tests.allSatisfy { $0 } : tests.contains(true)
    }

    /// One value of an entry against the event's value at the entry's path (nil when absent).
    /// - Parameter anyCased: whether the entry compares its texts as they are (`cased`).
    package static func holds(_ matcher: FieldCondition.ValueMatcher, _ value: JSONValue?, anyCased: Bool, event: any RuleEvent) -> Bool {
        switch matcher {
        case .exists(let wanted):
            // A JSON null is absent, as Sigma's backends and Sentinel read it.
            return (value.map { !$0.isNull } ?? false) == wanted
        case .null:
            return value?.isNull ?? true
        case .text(let pattern, let number):
            guard let value else { return false }
            // A value written as a number matches a number by value (`50053` and `50053.0`); a
            // number in the event is never compared as text with a different number.
            if let number, let actual = FieldCondition.number(value) {
                if actual == number { return true }
                if pattern.isExact && !value.isString { return false }
            }
            // `cased` applies to the whole entry: its texts are then compared as they are.
            let texts = FieldCondition.texts(value)
            return anyCased ? texts.contains { pattern.matches($0) } : texts.contains { pattern.matches(folded: $0.lowercased()) }
        case .regex(let regex):
            guard let value else { return false }
            return FieldCondition.texts(value).contains { regex.matches($0) }
        case .cidr(let block):
            guard let value else { return false }
            return FieldCondition.texts(value).contains { block.contains($0) }
        case .compare(let comparison, let threshold):
            guard let value else { return false }
            let numbers: [Double]
            if case .array(let items) = value { numbers = items.compactMap(FieldCondition.number) } else { numbers = FieldCondition.number(value).map { [$0] } ?? [] }
            return numbers.contains { actual in
                switch comparison {
                case .gt: return actual > threshold
                case .gte: return actual >= threshold
                case .lt: return actual < threshold
                case .lte: return actual <= threshold
                }
            }
        case .fieldRef(let other, let mode, let caseSensitive):
            guard let value, let otherText = event.field(at: other)?.scalarText else { return false }
            let reference = caseSensitive ? otherText : otherText.lowercased()
            return FieldCondition.texts(value).contains { text in
                let subject = caseSensitive ? text : text.lowercased()
                switch mode {
                case .equal: return subject == reference
                case .contains: return reference.isEmpty || subject.contains(reference)
                case .startsWith: return subject.hasPrefix(reference)
                case .endsWith: return subject.hasSuffix(reference)
                }
            }
        }
    }
}

extension PlainMatching {
    /// Which detection rules each event satisfies, in event order and then rule order, each
    /// (rule, event id) once: what `rules match` lists (`DetectionMatches`).
    public static func matches(_ rules: RuleSet, _ events: [any RuleEvent]) -> [DetectionMatch] {
        var told = Set<[String]>()
        var result: [DetectionMatch] = []
        for event in events {
            for rule in rules.detections where matches(rule.detection, event) && told.insert([rule.metadata.id, event.eventID]).inserted {
                result.append(DetectionMatch(ruleID: rule.metadata.id, title: rule.metadata.title, eventID: event.eventID, eventTime: event.eventTime))
            }
        }
        return result
    }
}
