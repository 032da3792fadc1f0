import Foundation
import TophhieJSON

/// The first pass of a streamed replay: where each sign-in of a file is, with its time and id,
/// so the second pass can read them in event-time order without holding the file.
///
/// Pure: the caller reads the file and hands over each record's bytes (`JSONElementSplitter`).
public struct ReplayIndex: Sendable {
    /// One sign-in's place in the file.
    public struct Entry: Sendable, Hashable {
        public var time: Date
        public var id: String
        public var offset: Int
        public var length: Int
    }

    public private(set) var entries: [Entry] = []
    /// The latest event time: a single-poll replay's `now`.
    public private(set) var latest: Date?

    /// The id and the time, read into two slots without building the rest.
    private static let keys = EventLayout(slots: [])

    public init() {}

    /// Records one sign-in.
    /// - Returns: false when the record is not one this pass can take (not JSON, no id or
    ///   time): the caller then reads the file the whole-file way, whose errors name the record.
    ///   Reading stops at the time and id (Graph writes them first): the second pass checks
    ///   the whole record, and the caller goes the whole-file way if that fails.
    public mutating func add(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        let leading = JSONLeadingMembers.strings(bytes, named: ["id", "createdDateTime"])
        let id: String, time: Date
        if let text = leading[0], !text.isEmpty, let timeText = leading[1], let parsed = GraphTimestamp.parse(timeText) {
            id = text
            time = parsed
        } else {
            // Anything unusual (an id that is a number, a member written twice) is read as the
            // second pass reads it.
            guard let event = try? ReplayIndex.keys.event(Array(bytes), untilFilled: true) else { return false }
            id = event.eventID
            time = event.eventTime
        }
        entries.append(Entry(time: time, id: id, offset: offset, length: bytes.count))
        latest = max(latest ?? time, time)
        return true
    }

    /// The entries in the engine's order: event time, then id, then place in the file (so of
    /// two copies of an id at one time, the earlier in the file is the one seen first).
    public func ordered() -> [Entry] {
        entries.sorted { ($0.time, $0.id, $0.offset) < ($1.time, $1.id, $1.offset) }
    }

    /// A record read back in the second pass into the engine's slots.
    /// - Throws: `SignInEventError` when the bytes are no longer what the first pass saw.
    public static func event(_ bytes: [UInt8], entry: Entry, layout: EventLayout) throws -> SlotEvent {
        try bytes.withUnsafeBytes { try event($0, entry: entry, layout: layout) }
    }

    /// `event` over bytes lent for the call.
    public static func event(_ bytes: UnsafeRawBufferPointer, entry: Entry, layout: EventLayout) throws -> SlotEvent {
        guard bytes.count == entry.length, let event = try? layout.event(bytes), event.eventID == entry.id, event.eventTime == entry.time else {
            throw SignInEventError("the file changed while it was read (the sign-in at byte \(entry.offset) is not what it was)")
        }
        return event
    }

    /// A record read back in the second pass, parsed keeping what the rules read.
    /// - Throws: `SignInEventError` when the bytes are no longer what the first pass saw.
    public static func event(_ bytes: [UInt8], entry: Entry, keeping projection: JSONProjection) throws -> JSONRuleEvent {
        guard bytes.count == entry.length, let json = try? JSONValue.parse(Data(bytes), keeping: projection),
              let event = try? SignInEvents.event(json), event.eventID == entry.id, event.eventTime == entry.time else {
            throw SignInEventError("the file changed while it was read (the sign-in at byte \(entry.offset) is not what it was)")
        }
        return event
    }
}
