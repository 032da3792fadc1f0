import Foundation
import TophhieRules

/// The parts of a correlation rule the per-event code reads, held by reference: copying the
/// rule value out of the plan for every event (its metadata, aliases, condition) was a tenth
/// of a replay in memory copies and reference counting.
final class CorrelationRuleRef: Sendable {
    let metadata: RuleMetadata
    let kind: CorrelationKind
    let groupBy: [String]
    let timespan: RuleDuration
    let options: RuleEngineOptions
    /// A first-seen rule's settings as plain values: binding them out of `kind` for every
    /// event copied the spec (its arrays and strings) each time.
    let firstSeen: FirstSeenSettings?

    init(_ rule: CorrelationRule) {
        metadata = rule.metadata
        kind = rule.kind
        groupBy = rule.groupBy
        timespan = rule.timespan
        options = rule.options
        if case .firstSeen(let spec) = rule.kind {
            firstSeen = FirstSeenSettings(learningPeriod: spec.learningPeriod.interval, learningEvents: spec.learningEvents,
                                          forgetAfter: spec.forgetAfter.interval, ignoreVersions: spec.ignoreVersions,
                                          alertOnSome: spec.alertOn != nil, alertWhileLearning: spec.alertWhileLearning)
        } else {
            firstSeen = nil
        }
    }
}

/// What first-seen reads of its spec for every event.
struct FirstSeenSettings: Sendable {
    var learningPeriod: TimeInterval
    var learningEvents: Int
    var forgetAfter: TimeInterval
    var ignoreVersions: Bool
    /// `alert-on` names the rules whose events may alert (the others only teach).
    var alertOnSome: Bool
    /// `learning.alert: lower`: a value never seen alerts while learning, marked and lower.
    var alertWhileLearning: Bool
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
