/// The parts of a correlation rule the per-event code reads, held by reference: copying the
/// rule value out of the plan for every event (its metadata, aliases, condition) was a tenth
/// of a replay in memory copies and reference counting.
final class CorrelationRuleRef: Sendable {
    let metadata: RuleMetadata
    let kind: CorrelationKind
    let groupBy: [String]
    let timespan: RuleDuration
    let options: RuleEngineOptions

    init(_ rule: CorrelationRule) {
        metadata = rule.metadata
        kind = rule.kind
        groupBy = rule.groupBy
        timespan = rule.timespan
        options = rule.options
    }
}

/// The parts of a detection rule an alert needs, held by reference for the same reason.
final class DetectionRuleRef: Sendable {
    let metadata: RuleMetadata
    let options: RuleEngineOptions

    init(_ rule: DetectionRule) {
        metadata = rule.metadata
        options = rule.options
    }
}
