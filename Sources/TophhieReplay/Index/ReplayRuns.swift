import Foundation
import TophhieRules
import TophhieRulesFast

/// A run of sign-ins side by side in a replay file, read back whole in the second pass.
public struct ReplayRun: Sendable, Equatable {
    /// From the first sign-in's first byte to the last one's last.
    public var start: Int
    public var end: Int
    /// Its sign-ins; -1 when they were not counted (a run between sampled sign-ins).
    public var count: Int
    /// Bounds of its sign-ins' times (exact for a counted run).
    public var earliest: Date
    public var latest: Date

    public init(start: Int, end: Int, count: Int, earliest: Date, latest: Date) {
        self.start = start
        self.end = end
        self.count = count
        self.earliest = earliest
        self.latest = latest
    }
}

/// The first pass of a streamed replay over a file in time order either way: runs of sign-ins
/// instead of each one, so what it keeps does not grow with the file. Pure.
public struct ReplayRuns: Sendable {
    /// Sign-ins in a run.
    public let length: Int
    public private(set) var runs: [ReplayRun] = []
    public private(set) var count = 0
    public private(set) var latest: Date?
    /// Whether every sign-in so far is at or after the one before it in the file; at or before.
    public private(set) var ascending = true
    public private(set) var descending = true
    private var previous: Date?
    /// The first sign-in's time.
    public private(set) var first: Date?
    /// Set by the caller once it keeps nothing else.
    public var holdsAll = false

    public init(length: Int) { self.length = max(1, length) }

    /// Whether the file is in time order, either way, so far.
    public var inOrder: Bool { ascending || descending }

    /// Takes the next sign-in in file order.
    /// - Returns: whether the file is still in time order.
    @discardableResult
    public mutating func add(time: Date, offset: Int, length bytes: Int) -> Bool {
        if let previous {
            if time < previous { ascending = false }
            if time > previous { descending = false }
        }
        previous = time
        if first == nil { first = time }
        count += 1
        latest = max(latest ?? time, time)
        if let last = runs.indices.last, runs[last].count < length {
            runs[last].end = offset + bytes
            runs[last].count += 1
            runs[last].earliest = min(runs[last].earliest, time)
            runs[last].latest = max(runs[last].latest, time)
        } else {
            runs.append(ReplayRun(start: offset, end: offset + bytes, count: 1, earliest: time, latest: time))
        }
        return inOrder
    }

    /// Takes the sign-ins of `later`, which follow these in the file: what adding each of them
    /// after these would give, except that these runs' last one is not filled from `later`'s.
    public mutating func append(_ later: ReplayRuns) {
        guard let laterFirst = later.first else { return }
        if let previous {
            if laterFirst < previous { ascending = false }
            if laterFirst > previous { descending = false }
        }
        ascending = ascending && later.ascending
        descending = descending && later.descending
        previous = later.previous
        if first == nil { first = laterFirst }
        count += later.count
        latest = max(latest ?? later.latest!, later.latest!)
        runs += later.runs
    }

    /// The runs in the order the engine takes them: from the file's oldest end.
    public func inEngineOrder() -> [ReplayRun] {
        descending && !ascending ? runs.reversed() : runs
    }
}
