import Foundation
import TophhieRules
import TophhieRulesFast
import TophhieJSON

/// The first pass of a streamed replay: where each sign-in of a file is, with its time, so the
/// second pass can read them in event-time order without holding the file.
///
/// 24 bytes a sign-in: the id is not kept. Sign-ins sharing a time are rare; `ordered` reads
/// their ids back to order them. Pure: the caller reads the file and hands over each record's
/// bytes (`JSONElementSplitter`), and reads ids back for `ordered`.
public struct ReplayIndex: Sendable {
    /// One sign-in's place in the file.
    public struct Entry: Sendable, Hashable {
        public var time: Date
        public var offset: Int
        public var length: Int32
    }

    public private(set) var entries: [Entry] = []
    /// The latest event time: a single-poll replay's `now`.
    public private(set) var latest: Date?

    /// The id and the time, read into two slots without building the rest.
    private static let keys = EventLayout(slots: [])

    public init() {}

    /// Records one sign-in.
    /// - Returns: false when the record is not one this pass can take (not JSON, no id or
    ///   time, over 2 GB): the caller then reads the file the whole-file way, whose errors name
    ///   the record. Reading stops at the time and id (Graph writes them first): the second pass
    ///   checks the whole record, and the caller goes the whole-file way if that fails.
    public mutating func add(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        guard let time = ReplayIndex.time(bytes), let length = Int32(exactly: bytes.count) else { return false }
        entries.append(Entry(time: time, offset: offset, length: length))
        latest = max(latest ?? time, time)
        return true
    }

    /// Records one sign-in whose time the caller read (an export's record, mapped).
    /// - Returns: false for a record over 2 GB.
    public mutating func add(time: Date, offset: Int, length: Int) -> Bool {
        guard let length = Int32(exactly: length) else { return false }
        entries.append(Entry(time: time, offset: offset, length: length))
        latest = max(latest ?? time, time)
        return true
    }

    /// `idAndTime(bytes)?.time`: the first pass needs only the time, and the id only checked.
    public static func time(_ bytes: UnsafeRawBufferPointer) -> Date? {
        JSONLeadingMembers.time(bytes) ?? idAndTime(bytes)?.time
    }

    /// The time of the sign-in that starts at `start` in bytes that go on past it (read whole,
    /// strictly, as the second pass reads it); nil when none reads there.
    public static func time(in bytes: UnsafeRawBufferPointer, at start: Int) -> Date? {
        (try? keys.event(bytes, from: start))?.event.eventTime
    }

    /// A record's id and time, read up to them.
    public static func idAndTime(_ bytes: UnsafeRawBufferPointer) -> (id: String, time: Date)? {
        if let leading = JSONLeadingMembers.idAndTime(bytes) { return leading }
        // Anything unusual (an id that is a number, a member written twice) is read as the
        // second pass reads it.
        guard let event = try? ReplayIndex.keys.event(bytes, untilFilled: true) else { return nil }
        return (event.eventID, event.eventTime)
    }

    /// The entries in the engine's order: event time, then id, then place in the file (so of
    /// two copies of an id at one time, the earlier in the file is the one seen first).
    /// - Parameter id: reads back the id of an entry that shares its time with another; nil
    ///   when it cannot (the entry then goes by its place in the file).
    /// - Complexity: O(n log n), and a read for each entry that shares its time.
    public mutating func sort(id: (Entry) -> String?) {
        ReplayIndex.sort(&entries, id: id)
    }

    /// `sort` for entries held elsewhere (a stretch of a spilled index, a test's).
    public static func sort(_ entries: inout [Entry], id: (Entry) -> String?) {
        entries.sort { ($0.time, $0.offset) < ($1.time, $1.offset) }
        var start = 0
        while start < entries.count {
            var end = start + 1
            while end < entries.count, entries[end].time == entries[start].time { end += 1 }
            if end - start > 1 {
                let run = entries[start..<end].map { (id: id($0) ?? "", entry: $0) }
                let sorted = run.sorted { ($0.id, $0.entry.offset) < ($1.id, $1.entry.offset) }
                entries.replaceSubrange(start..<end, with: sorted.map(\.entry))
            }
            start = end
        }
    }

    /// A record read back in the second pass into the engine's slots.
    /// - Throws: `SignInEventError` when the bytes are no longer what the first pass saw.
    package static func event(_ bytes: [UInt8], entry: Entry, layout: EventLayout) throws -> SlotEvent {
        try bytes.withUnsafeBytes { try event($0, entry: entry, layout: layout) }
    }

    /// `event` over bytes lent for the call.
    package static func event(_ bytes: UnsafeRawBufferPointer, entry: Entry, layout: EventLayout) throws -> SlotEvent {
        guard bytes.count == Int(entry.length), let event = try? layout.event(bytes), event.eventTime == entry.time else {
            throw SignInEventError("the file changed while it was read (the sign-in at byte \(entry.offset) is not what it was)")
        }
        return event
    }

    /// A record read back in the second pass, parsed keeping what the rules read.
    /// - Throws: `SignInEventError` when the bytes are no longer what the first pass saw.
    public static func event(_ bytes: [UInt8], entry: Entry, keeping projection: JSONProjection) throws -> JSONRuleEvent {
        guard bytes.count == Int(entry.length), let json = try? JSONValue.parse(Data(bytes), keeping: projection),
              let event = try? SignInEvents.event(json), event.eventTime == entry.time else {
            throw SignInEventError("the file changed while it was read (the sign-in at byte \(entry.offset) is not what it was)")
        }
        return event
    }
}
