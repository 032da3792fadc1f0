import Foundation

/// Where one walk of a stream's re-read has got to: the walk down the lookback (`rereads`) or
/// the sweep down to the retention floor (`sweeps`).
public struct RereadCursor: Sendable, Equatable, Codable {
    /// The next page's `createdDateTime le`; nil when the next poll starts a new walk.
    public var upper: Date?
    /// Where this walk ends.
    public var floor: Date?
    /// Whether this walk goes down to the retention floor (the sweep).
    public var sweep: Bool = false
    /// When this stream's last walk to the retention floor started.
    public var lastSweep: Date?
    /// Where this walk began (its first page's `le`).
    public var top: Date?
    /// Pages this walk has read so far.
    public var pages: Int = 0
    /// Pages the last whole walk took: how many the next one is likely to take.
    public var lastWalkPages: Int?

    public init(upper: Date? = nil, floor: Date? = nil, sweep: Bool = false, lastSweep: Date? = nil, top: Date? = nil, pages: Int = 0, lastWalkPages: Int? = nil) {
        self.upper = upper
        self.floor = floor
        self.sweep = sweep
        self.lastSweep = lastSweep
        self.top = top
        self.pages = pages
        self.lastWalkPages = lastWalkPages
    }

    private enum CodingKeys: String, CodingKey { case upper, floor, sweep, lastSweep, top, pages, lastWalkPages }

    // States written before a walk counted its pages have none of the last three.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        upper = try container.decodeIfPresent(Date.self, forKey: .upper)
        floor = try container.decodeIfPresent(Date.self, forKey: .floor)
        sweep = try container.decodeIfPresent(Bool.self, forKey: .sweep) ?? false
        lastSweep = try container.decodeIfPresent(Date.self, forKey: .lastSweep)
        top = try container.decodeIfPresent(Date.self, forKey: .top)
        pages = try container.decodeIfPresent(Int.self, forKey: .pages) ?? 0
        lastWalkPages = try container.decodeIfPresent(Int.self, forKey: .lastWalkPages)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(upper, forKey: .upper)
        try container.encodeIfPresent(floor, forKey: .floor)
        try container.encode(sweep, forKey: .sweep)
        try container.encodeIfPresent(lastSweep, forKey: .lastSweep)
        try container.encodeIfPresent(top, forKey: .top)
        if pages > 0 { try container.encode(pages, forKey: .pages) }
        try container.encodeIfPresent(lastWalkPages, forKey: .lastWalkPages)
    }
}
