/// The scripted faults still to happen, consumed in order. Pure state.
struct FaultPlan: Sendable {
    private var rules: [FaultRule]
    private var seen: [Int]

    init(_ rules: [FaultRule]) {
        self.rules = rules
        self.seen = Array(repeating: 0, count: rules.count)
    }

    /// Adds a rule after the existing ones.
    mutating func append(_ rule: FaultRule) {
        rules.append(rule)
        seen.append(0)
    }

    /// The fault for this request, if one is due: the first rule whose prefix and method match and
    /// that has passed its `skip` count but not used up its `count`.
    /// - Parameter query: the request's decoded query, for `queryContains`.
    mutating func take(method: String, path: String, query: String = "") -> FaultRule? {
        var chosen: FaultRule?
        for index in rules.indices {
            let rule = rules[index]
            guard path.hasPrefix(rule.pathPrefix) else { continue }
            if let text = rule.queryContains, !query.contains(text) { continue }
            if let ruleMethod = rule.method, ruleMethod.caseInsensitiveCompare(method) != .orderedSame { continue }
            let position = seen[index]
            guard position < rule.skip + rule.count else { continue }
            seen[index] += 1
            if chosen == nil && position >= rule.skip {
                chosen = rule
            }
            // Every matching rule counts the request, so `skip` means "the Nth matching request" for each rule.
        }
        return chosen
    }
}
