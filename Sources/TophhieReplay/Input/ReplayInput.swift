import Foundation
import TophhieRules
import TophhieJSON

/// A replay file read into polls: what Graph returned, and when.
///
/// Accepted forms: a Graph page `{"value": [...]}`, a JSON array, or JSON lines of signIn
/// objects (one poll at the latest event time); or a poll timeline
/// `{"polls": [{"at": "<ISO time>", "events": [...]}, ...]}` where each poll is what Graph
/// returned at that wall-clock time.
public struct ReplayInput: Sendable {
    public struct Poll: Sendable {
        public var at: Date
        public var events: [JSONRuleEvent]
    }

    public var polls: [Poll]
    public var eventCount: Int { polls.reduce(0) { $0 + $1.events.count } }

    /// Parses a replay file.
    /// - Parameter projection: the parts of each sign-in to build (`Engine.eventProjection`);
    ///   the rest of each event is checked for structure and dropped, which is most of the
    ///   parsing a replay does.
    /// - Throws: `SignInEventError` naming the record (and line for JSON lines) that is wrong.
    public init(data: Data, keeping projection: JSONProjection = .everything) throws {
        // The file's own shapes around the events: a page's `value`, a timeline's polls.
        let document = projection.whole ? projection : projection
            .merging(.member("value", projection))
            .merging(.member("polls", ReplayInput.pollProjection(projection)))
        let text = data.prefix(64).drop { [0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains($0) }
        guard let first = text.first else { throw SignInEventError("the replay file is empty") }
        if first == UInt8(ascii: "[") {
            polls = [try ReplayInput.singlePoll(try ReplayInput.parse(data, what: "the file", keeping: projection), what: "the array")]
            return
        }
        guard first == UInt8(ascii: "{") else {
            throw SignInEventError("the replay file must be JSON: a Graph page {\"value\":[…]}, an array, JSON lines, or a poll timeline {\"polls\":[…]}")
        }
        if let whole = try? JSONValue.parse(data, keeping: document) {
            if let value = whole["value"] {
                polls = [try ReplayInput.singlePoll(value, what: "'value'")]
            } else if let timeline = whole["polls"] {
                polls = try ReplayInput.pollTimeline(timeline)
            } else if whole["id"] != nil {
                polls = [try ReplayInput.singlePoll(.array([whole]), what: "the file")]
            } else {
                throw SignInEventError("a JSON object replay file needs 'value' (a Graph page) or 'polls' (a poll timeline)")
            }
            return
        }
        var events: [JSONValue] = []
        var lineNumber = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
            events.append(try ReplayInput.parse(Data(line), what: "line \(lineNumber)", keeping: projection))
        }
        polls = [try ReplayInput.singlePoll(.array(events), what: "the JSON lines")]
    }

    static func parse(_ data: Data, what: String, keeping projection: JSONProjection = .everything) throws -> JSONValue {
        do {
            return try JSONValue.parse(data, keeping: projection)
        } catch let failure as JSONParseError {
            throw SignInEventError("\(what) is not valid JSON (\(failure))")
        }
    }

    static func events(_ value: JSONValue, what: String) throws -> [JSONRuleEvent] {
        guard case .array(let items) = value else { throw SignInEventError("\(what) must be a list of sign-ins") }
        return try items.enumerated().map { index, item in
            do { return try SignInEvents.event(item) } catch let error as SignInEventError {
                throw SignInEventError("\(what), item \(index + 1): \(error.message)")
            }
        }
    }

    static func singlePoll(_ value: JSONValue, what: String) throws -> Poll {
        let list = try events(value, what: what)
        return Poll(at: list.map(\.eventTime).max() ?? Date(timeIntervalSince1970: 0), events: list)
    }

    static func pollTimeline(_ value: JSONValue) throws -> [Poll] {
        guard case .array(let items) = value else { throw SignInEventError("'polls' must be a list of {at, events}") }
        var polls: [Poll] = []
        for (index, item) in items.enumerated() {
            polls.append(try poll(item, number: index + 1, after: polls.last?.at))
        }
        return polls
    }

    /// What to build of one poll of a timeline: its time, and of its events what `projection` keeps.
    public static func pollProjection(_ projection: JSONProjection) -> JSONProjection {
        JSONProjection.member("at", .everything).merging(.member("events", projection))
    }

    /// One poll of a timeline.
    /// - Parameters:
    ///   - number: its place in the timeline, from 1, for messages.
    ///   - previous: the time of the poll before it, which it must not precede.
    /// - Throws: `SignInEventError` naming the poll, and the sign-in, that is wrong.
    public static func poll(_ item: JSONValue, number: Int, after previous: Date?) throws -> Poll {
        guard let atText = item["at"]?.stringValue, let at = GraphTimestamp.parse(atText) else {
            throw SignInEventError("poll \(number) needs 'at': an ISO 8601 time such as 2024-05-01T10:00:00Z")
        }
        if let previous, at < previous {
            throw SignInEventError("poll \(number) is at \(atText), before the poll before it; polls must be in time order")
        }
        return Poll(at: at, events: try events(item["events"] ?? .array([]), what: "poll \(number) 'events'"))
    }
}
