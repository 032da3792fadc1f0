import Foundation

/// What a candidate alert is to its rule and group's alerted episodes: the one meaning of
/// suppression and reminders, which every evaluator's `emit` asks.
package enum EpisodeDecision: Equatable, Sendable {
    /// A new episode: alert.
    case alert
    /// Joined an episode whose last alert is recent: quiet.
    case joined
    /// Joined an episode that has gone on, since its last alert, for `reminderAfter` of event
    /// time or the rule's quiet period, the longer: one reminder, numbered within the episode, with the candidates that joined
    /// since that alert (this one included).
    case reminder(episodeID: String, number: Int, uses: Int)

    /// A long theft must not go quiet after one alert: an episode still going on this long after
    /// its last alert (in event time) sends a reminder. A rule quiet for longer (legacy-auth's
    /// week for a regular IMAP client) reminds after its own quiet period instead.
    package static let reminderAfter: TimeInterval = 24 * 3600

    /// Places a candidate among `episodes` (quiet on both sides: the earlier half of a burst
    /// that arrives after the later half belongs to the same episode) and records it.
    /// - Parameters:
    ///   - from: where the candidate's episode starts for the test (its first event, or a travel
    ///     pair's later sign-in).
    ///   - alertID: the id the candidate's alert would have (worked out for a new episode only):
    ///     a new episode is known by it.
    package static func decide(_ episodes: inout [EngineState.Episode], first: Date, last: Date, from: Date, suppress: TimeInterval,
                               alertID: () -> String) -> EpisodeDecision {
        guard let joined = episodes.firstIndex(where: { from <= $0.end && last >= $0.start.addingTimeInterval(-suppress) }) else {
            episodes.append(EngineState.Episode(start: first, end: last.addingTimeInterval(suppress), alertID: alertID(), lastAlert: last))
            return .alert
        }
        var episode = episodes[joined]
        episode.start = min(episode.start, first)
        episode.end = max(episode.end, last.addingTimeInterval(suppress))
        defer { episodes[joined] = episode }
        // Episodes from states written before reminders have no alert to count from: quiet, as then.
        guard let episodeID = episode.alertID, let lastAlert = episode.lastAlert else { return .joined }
        let uses = (episode.usesSinceAlert ?? 0) + 1
        guard last.timeIntervalSince(lastAlert) >= max(reminderAfter, suppress) else {
            episode.usesSinceAlert = uses
            return .joined
        }
        let number = (episode.reminders ?? 0) + 1
        episode.reminders = number
        episode.lastAlert = last
        episode.usesSinceAlert = 0
        return .reminder(episodeID: episodeID, number: number, uses: uses)
    }
}
