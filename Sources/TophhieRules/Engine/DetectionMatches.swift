import Foundation

/// Which detection rules a sign-in satisfies, on their own: no windows, no suppression, no
/// correlation. What `rules match` prints, and what a Sigma backend's query would select.
public struct DetectionMatches: Sendable {
    /// One detection rule's match of one event.
    public struct Match: Sendable, Hashable {
        public var ruleID: String
        public var title: String
        public var eventID: String
        public var eventTime: Date
    }

    let detections: [DetectionRule]
    let matchers: [DetectionMatcher]

    public init(rules: RuleSet) {
        detections = rules.detections
        let numbering = EntryNumbering()
        matchers = detections.map { DetectionMatcher($0.detection, numbering: numbering) }
    }

    /// The matches of each event in order, each (rule, event id) once even when an id repeats.
    /// - Complexity: O(n·r) for n events and r detection rules.
    public func matches(_ events: [any RuleEvent]) -> [Match] {
        var told = Set<String>()
        return matches(events, told: &told)
    }

    /// The matches of a batch, each (rule, event id) once across the batches that share `told`.
    public func matches(_ events: [any RuleEvent], told: inout Set<String>) -> [Match] {
        var result: [Match] = []
        let texts = SlotTexts()
        for event in events {
            texts.next()
            // By index: iterating the rules by value copied every rule for every event.
            for index in matchers.indices where matchers[index].matches(event, texts) {
                let metadata = detections[index].metadata
                guard told.insert(metadata.id + "\u{1F}" + event.eventID).inserted else { continue }
                result.append(Match(ruleID: metadata.id, title: metadata.title, eventID: event.eventID, eventTime: event.eventTime))
            }
        }
        return result
    }
}
