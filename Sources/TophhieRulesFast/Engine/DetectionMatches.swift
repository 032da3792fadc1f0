import Foundation
import TophhieRules

/// Which detection rules a sign-in satisfies, on their own: no windows, no suppression, no
/// correlation. What `rules match` prints, and what a Sigma backend's query would select.
package struct DetectionMatches: Sendable {
    let detections: [DetectionRule]
    let matchers: [DetectionMatcher]

    package init(rules: RuleSet) {
        detections = rules.detections
        let numbering = EntryNumbering()
        matchers = detections.map { DetectionMatcher($0.detection, numbering: numbering) }
    }

    /// The matches of each event in order, each (rule, event id) once even when an id repeats.
    /// - Complexity: O(n·r) for n events and r detection rules.
    package func matches(_ events: [any RuleEvent]) -> [DetectionMatch] {
        var told = Set<String>()
        return matches(events, told: &told)
    }

    /// The matches of a batch, each (rule, event id) once across the batches that share `told`.
    package func matches(_ events: [any RuleEvent], told: inout Set<String>) -> [DetectionMatch] {
        var result: [DetectionMatch] = []
        let texts = SlotTexts()
        for event in events.map(fastEvent) {
            texts.next()
            // By index: iterating the rules by value copied every rule for every event.
            for index in matchers.indices where matchers[index].matches(event, texts) {
                let metadata = detections[index].metadata
                guard told.insert(metadata.id + "\u{1F}" + event.eventID).inserted else { continue }
                result.append(DetectionMatch(ruleID: metadata.id, title: metadata.title, eventID: event.eventID, eventTime: event.eventTime))
            }
        }
        return result
    }
}
