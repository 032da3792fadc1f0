import YAMLReader

extension RuleDocumentReader {
    mutating func readCorrelation(_ node: YAMLNode, metadata: RuleMetadata, options: RuleEngineOptions) -> CorrelationRule? {
        guard node.mapping != nil else {
            report(.error, node.mark, "'correlation' must be a mapping (type, rules, group-by, timespan, condition)")
            return nil
        }
        guard let typeNode = node.mappingValue(forKey: "type"), let typeName = typeNode.scalarText else {
            report(.error, node.mark, "'correlation' needs a 'type'")
            return nil
        }
        let known = ["event_count", "value_count", "temporal", "temporal_ordered", "first_seen", "impossible_travel"]
        guard known.contains(typeName) else {
            let unsupported = ["value_sum", "value_avg", "value_percentile", "value_median"].contains(typeName)
            report(.error, typeNode.mark, unsupported
                ? "correlation type '\(typeName)' is not supported (supported: \(known.joined(separator: ", ")))"
                : "unknown correlation type '\(typeName)' (supported: \(known.joined(separator: ", ")))")
            return nil
        }
        guard let rulesNode = node.mappingValue(forKey: "rules") else {
            report(.error, node.mark, "'correlation' needs 'rules': the ids or names of the rules it correlates")
            return nil
        }
        guard let rules = strings(rulesNode, "rules"), !rules.isEmpty else { return nil }
        var groupBy: [String] = []
        if let groupNode = node.mappingValue(forKey: "group-by") {
            guard let fields = strings(groupNode, "group-by") else { return nil }
            groupBy = fields
            for (field, item) in zip(fields, groupNode.sequence ?? [groupNode]) {
                if let warning = SignInFieldCatalog.resolve(field, schema: schema).warning, node.mappingValue(forKey: "aliases")?.mappingValue(forKey: field) == nil {
                    report(.warning, item.mark, warning)
                }
            }
        } else if ["event_count", "value_count", "temporal", "temporal_ordered"].contains(typeName) {
            report(.error, node.mark, "'\(typeName)' needs 'group-by'")
            return nil
        }
        var aliases: [String: [String: String]] = [:]
        if let aliasNode = node.mappingValue(forKey: "aliases") {
            guard let pairs = aliasNode.mapping else {
                report(.error, aliasNode.mark, "'aliases' must map each alias to {rule: field}")
                return nil
            }
            for pair in pairs {
                guard let alias = pair.key.scalarText, let perRule = pair.value.mapping else {
                    report(.error, pair.value.mark, "alias '\(pair.key.scalarText ?? "?")' must map rule names to fields")
                    return nil
                }
                var map: [String: String] = [:]
                for entry in perRule {
                    guard let rule = entry.key.scalarText, let field = string(entry.value, "aliases") else { return nil }
                    if let warning = SignInFieldCatalog.resolve(field, schema: schema).warning { report(.warning, entry.value.mark, warning) }
                    map[rule] = field
                }
                aliases[alias] = map
            }
        }
        var timespan = RuleDuration.zero
        if let spanNode = node.mappingValue(forKey: "timespan") {
            guard let d = duration(spanNode, "timespan") else { return nil }
            guard d.seconds > 0 else {
                report(.error, spanNode.mark, "'timespan' must be longer than zero")
                return nil
            }
            timespan = d
        } else if typeName == "impossible_travel" {
            timespan = RuleDuration(seconds: 86_400, text: "24h")
        } else if typeName != "first_seen" {
            report(.error, node.mark, "'\(typeName)' needs a 'timespan' such as 10m")
            return nil
        }
        var generate = false
        if let generateNode = node.mappingValue(forKey: "generate") {
            guard case .bool(let b)? = generateNode.scalar.map({ RuleDocumentReader.ruleValue($0) }) else {
                report(.error, generateNode.mark, "'generate' must be true or false")
                return nil
            }
            generate = b
        }

        var condition = CorrelationCondition([])
        var conditionField: String?
        if let conditionNode = node.mappingValue(forKey: "condition") {
            guard let pairs = conditionNode.mapping else {
                report(.error, conditionNode.mark, "a correlation 'condition' is a mapping such as {gte: 5}")
                return nil
            }
            var comparisons: [(CorrelationCondition.Operator, Int)] = []
            for pair in pairs {
                guard let key = pair.key.scalarText else { continue }
                if key == "field" {
                    conditionField = string(pair.value, "condition.field")
                    continue
                }
                guard let op = CorrelationCondition.Operator(rawValue: key) else {
                    report(.error, pair.key.mark, "unknown condition operator '\(key)' (use gt, gte, lt, lte, eq, neq)")
                    return nil
                }
                guard let value = integer(pair.value, "condition.\(key)") else { return nil }
                comparisons.append((op, value))
            }
            if comparisons.isEmpty || comparisons.count > 2 {
                report(.error, conditionNode.mark, "a correlation 'condition' needs one comparison, or two for a range")
                return nil
            }
            condition = CorrelationCondition(comparisons, field: conditionField)
        } else if typeName == "temporal" || typeName == "temporal_ordered" {
            condition = CorrelationCondition([(.gte, rules.count)])
        } else if typeName == "event_count" || typeName == "value_count" {
            report(.error, node.mark, "'\(typeName)' needs a 'condition' such as {gte: 5}")
            return nil
        }

        let kind: CorrelationKind
        switch typeName {
        case "event_count": kind = .eventCount
        case "value_count":
            guard let field = conditionField else {
                report(.error, node.mappingValue(forKey: "condition")?.mark ?? node.mark, "'value_count' needs 'field' in its condition: the field whose distinct values are counted")
                return nil
            }
            if let warning = SignInFieldCatalog.resolve(field, schema: schema).warning { report(.warning, node.mappingValue(forKey: "condition")!.mark, warning) }
            kind = .valueCount(field: field)
        case "temporal": kind = .temporal
        case "temporal_ordered": kind = .temporalOrdered
        case "first_seen":
            guard let spec = readFirstSeen(node) else { return nil }
            kind = .firstSeen(spec)
        default:
            guard let spec = readTravel(node) else { return nil }
            kind = .impossibleTravel(spec)
        }
        return CorrelationRule(metadata: metadata, kind: kind, rules: rules, groupBy: groupBy, aliases: aliases,
                               timespan: timespan, condition: condition, generate: generate, options: options)
    }

    mutating func readFirstSeen(_ node: YAMLNode) -> FirstSeenSpec? {
        guard let fieldsNode = node.mappingValue(forKey: "fields") else {
            report(.error, node.mark, "'first_seen' needs 'fields': the field (or fields) whose value must be new")
            return nil
        }
        guard let fields = strings(fieldsNode, "fields"), !fields.isEmpty else { return nil }
        for (field, item) in zip(fields, fieldsNode.sequence ?? [fieldsNode]) {
            if let warning = SignInFieldCatalog.resolve(field, schema: schema).warning { report(.warning, item.mark, warning) }
        }
        var period = RuleDuration(seconds: 14 * 86_400, text: "14d")
        var events = 10
        var alertWhileLearning = false
        if let learning = node.mappingValue(forKey: "learning") {
            guard learning.mapping != nil else {
                report(.error, learning.mark, "'learning' must be a mapping {period: 14d, events: 10}")
                return nil
            }
            if let p = learning.mappingValue(forKey: "period") { guard let d = duration(p, "learning.period") else { return nil }; period = d }
            if let e = learning.mappingValue(forKey: "events") { guard let n = integer(e, "learning.events") else { return nil }; events = n }
            if let a = learning.mappingValue(forKey: "alert") {
                switch a.scalarText {
                case "quiet": alertWhileLearning = false
                case "lower": alertWhileLearning = true
                default:
                    report(.error, a.mark, "'learning.alert' must be 'quiet' (nothing while learning) or 'lower' (a value never seen, one level lower)")
                    return nil
                }
            }
        }
        var forget = RuleDuration(seconds: 90 * 86_400, text: "90d")
        if let f = node.mappingValue(forKey: "forget") { guard let d = duration(f, "forget") else { return nil }; forget = d }
        var ignoreVersions = false
        if let v = node.mappingValue(forKey: "ignore-versions") {
            guard case .bool(let b)? = v.scalar.map({ RuleDocumentReader.ruleValue($0) }) else {
                report(.error, v.mark, "'ignore-versions' must be true or false")
                return nil
            }
            ignoreVersions = b
        }
        var alertOn: [String]?, refreshOnly: [String]?
        if let a = node.mappingValue(forKey: "alert-on") {
            guard let names = subsetOfRules(a, "alert-on", node) else { return nil }
            alertOn = names
        }
        if let r = node.mappingValue(forKey: "refresh-only") {
            guard let names = subsetOfRules(r, "refresh-only", node) else { return nil }
            refreshOnly = names
        }
        return FirstSeenSpec(fields: fields, learningPeriod: period, learningEvents: events, forgetAfter: forget, ignoreVersions: ignoreVersions,
                             alertOn: alertOn, refreshOnly: refreshOnly, alertWhileLearning: alertWhileLearning)
    }

    /// A first-seen setting naming some of the correlation's `rules`: one or more names, each among them.
    private mutating func subsetOfRules(_ a: YAMLNode, _ key: String, _ node: YAMLNode) -> [String]? {
        guard let names = strings(a, key), !names.isEmpty else {
            report(.error, a.mark, "'\(key)' must name one or more of the correlation's rules")
            return nil
        }
        let referenced = node.mappingValue(forKey: "rules").flatMap { $0.sequence ?? [$0] }?.compactMap(\.scalarText) ?? []
        if let stray = names.first(where: { !referenced.contains($0) }) {
            report(.error, a.mark, "'\(key)' names '\(stray)', which is not in the correlation's 'rules'")
            return nil
        }
        return names
    }

    mutating func readTravel(_ node: YAMLNode) -> TravelSpec? {
        var speed = 900.0, distance = 500.0
        if let s = node.mappingValue(forKey: "max-speed-kmh") { guard let v = number(s, "max-speed-kmh"), v > 0 else { return nil }; speed = v }
        if let d = node.mappingValue(forKey: "min-distance-km") { guard let v = number(d, "min-distance-km"), v >= 0 else { return nil }; distance = v }
        var familiarDays = TravelSpec.defaultFamiliarDays
        if let f = node.mappingValue(forKey: "familiar-after-days") {
            guard let v = integer(f, "familiar-after-days") else { return nil }
            guard v >= 0 else {
                report(.error, f.mark, "'familiar-after-days' must be 0 (never familiar) or more")
                return nil
            }
            familiarDays = v
        }
        var familiarFrom: [String]?
        if let f = node.mappingValue(forKey: "familiar-from") {
            guard let names = subsetOfRules(f, "familiar-from", node) else { return nil }
            familiarFrom = names
        }
        return TravelSpec(maxSpeedKmh: speed, minDistanceKm: distance, familiarAfterDays: familiarDays, familiarFrom: familiarFrom)
    }
}
