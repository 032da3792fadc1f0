import Foundation
import TophhieRules
import TophhieRulesFast
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
        // A byte-order mark (Microsoft-Extractor-Suite writes one) is not part of the JSON, and
        // positions in errors are counted after it.
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? Data(data.dropFirst(3)) : data
        let text = body.prefix(64).drop { [0x20, 0x0A, 0x0D, 0x09].contains($0) }
        guard let first = text.first else { throw SignInEventError("the replay file is empty") }
        if first == UInt8(ascii: "[") {
            polls = [try ReplayInput.singlePoll(try ReplayInput.parse(body, what: "the file", keeping: projection), what: "the array")]
            return
        }
        guard first == UInt8(ascii: "{") else {
            throw SignInEventError("the replay file must be JSON: a Graph page {\"value\":[…]}, an array, JSON lines, or a poll timeline {\"polls\":[…]}")
        }
        func isBlank(_ line: Data.SubSequence) -> Bool { line.allSatisfy { $0 == 0x20 || $0 == 0x0D || $0 == 0x09 } }
        do {
            let whole = try JSONValue.parse(body, keeping: document)
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
        } catch let failure as JSONParseError {
            // JSON lines when the first line is a whole value; otherwise one document, broken
            // where the parser stopped (a Graph page with a trailing comma is not JSON lines).
            let firstLine = body.split(separator: UInt8(ascii: "\n")).first { !isBlank($0) }
            guard let firstLine, (try? JSONValue.parse(Data(firstLine))) != nil else {
                throw SignInEventError("the file is not valid JSON: \(ReplayInput.position(of: failure, in: body))")
            }
        }
        var events: [JSONValue] = []
        for (index, line) in body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() where !isBlank(line) {
            do {
                events.append(try JSONValue.parse(Data(line), keeping: projection))
            } catch let failure as JSONParseError {
                throw SignInEventError("the file is not valid JSON: line \(index + 1), column \(failure.offset + 1): \(failure.message)")
            }
        }
        polls = [try ReplayInput.singlePoll(.array(events), what: "the JSON lines")]
    }

    static func parse(_ data: Data, what: String, keeping projection: JSONProjection = .everything) throws -> JSONValue {
        do {
            return try JSONValue.parse(data, keeping: projection)
        } catch let failure as JSONParseError {
            throw SignInEventError("\(what) is not valid JSON: \(ReplayInput.position(of: failure, in: data))")
        }
    }

    /// Where a parse error is, as a person finds it in an editor: "line 64, column 15: …"
    /// (columns count bytes, from 1).
    static func position(of failure: JSONParseError, in data: Data) -> String {
        var line = 1, lineStart = 0
        for (offset, byte) in data.prefix(failure.offset).enumerated() where byte == UInt8(ascii: "\n") {
            line += 1
            lineStart = offset + 1
        }
        return "line \(line), column \(failure.offset - lineStart + 1): \(failure.message)"
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
