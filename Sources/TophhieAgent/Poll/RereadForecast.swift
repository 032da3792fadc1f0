import Foundation

/// By when a late sign-in anywhere in the lookback will have been read, for one stream, and how
/// far its lookback walk has come (`PollPlanner.forecast`).
public struct RereadForecast: Sendable, Equatable {
    /// Nil until the walk's size is known (its first page read).
    public var foundBy: Date?
    /// Pages the walk under way has read.
    public var pagesRead: Int
    /// Pages a whole walk takes, as far as known.
    public var walkPages: Int?
    public var pagesPerPoll: Int
    /// Whether a walk is under way; otherwise the next poll starts one.
    public var underWay: Bool
    public var lookback: Double

    /// "a late sign-in anywhere in the last 24 h is found by 14:05 UTC (walk at page 3 of 26, 3 pages a poll)".
    /// - Parameter time: how a time reads (the caller's clock format).
    public func sentence(time: (Date) -> String) -> String {
        let window = lookback.truncatingRemainder(dividingBy: 3600) == 0 ? "\(Int(lookback / 3600)) h" : "\(Int(lookback / 60)) min"
        let perPoll = "\(pagesPerPoll) page\(pagesPerPoll == 1 ? "" : "s") a poll"
        let progress: String
        if let walkPages {
            progress = underWay ? "walk at page \(pagesRead) of \(walkPages), \(perPoll)" : "a new walk of \(walkPages) page\(walkPages == 1 ? "" : "s") starts next poll, \(perPoll)"
        } else {
            progress = "the walk's length is known after its first page"
        }
        guard let foundBy else { return "a late sign-in anywhere in the last \(window): not known yet (\(progress))" }
        return "a late sign-in anywhere in the last \(window) is found by \(time(foundBy)) (\(progress))"
    }
}
