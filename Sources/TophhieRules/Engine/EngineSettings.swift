import Foundation

/// How the engine treats time around the rules.
public struct EngineSettings: Sendable, Hashable {
    /// How far back each poll re-reads: windows stay open this long past their timespan so late
    /// events still join them, and event ids are remembered this long to drop repeats.
    public var lookback: TimeInterval
    /// An alert is `late` when it is detected more than this after its window closed in event
    /// time: the documented p99 sign-in latency (5 min) plus a poll interval.
    public var lateGrace: TimeInterval
    /// How long processed ids are remembered: past Graph's 30-day retention, so a sweep over the
    /// whole retained log can tell a sign-in published late from one processed long ago.
    public var idMemory: TimeInterval
    /// Upper bound on events kept for open windows, oldest dropped first.
    public var maxStoredEvents: Int
    /// Upper bound on remembered values per first-seen group, least recently seen dropped first.
    public var maxKnownValues: Int

    public init(lookback: TimeInterval = 24 * 3600, lateGrace: TimeInterval = 15 * 60, idMemory: TimeInterval = 31 * 86_400, maxStoredEvents: Int = 200_000, maxKnownValues: Int = 5_000) {
        self.lookback = lookback
        self.idMemory = idMemory
        self.lateGrace = lateGrace
        self.maxStoredEvents = maxStoredEvents
        self.maxKnownValues = maxKnownValues
    }
}
