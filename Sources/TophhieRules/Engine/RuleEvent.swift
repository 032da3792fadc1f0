import Foundation
import TophhieJSON

/// What the engine needs of a sign-in: an id, an event time, and any field by Graph JSON path.
///
/// Live polls, replay files and rule test cases all feed the engine through this one shape.
public protocol RuleEvent: Sendable {
    /// The Graph `signIn.id`; duplicates across polls share it.
    var eventID: String { get }
    /// `createdDateTime`: every window is in this time, never arrival time.
    var eventTime: Date { get }
    /// The value at a Graph v1.0 dotted path (`status.errorCode`), `nil` when absent.
    func field(_ path: String) -> JSONValue?
    /// The value at a path already split at its dots; rules pre-split their field names.
    func field(at components: [String]) -> JSONValue?
    /// Every string in the event, for Sigma keyword searches that look at the whole record.
    func searchableTexts() -> [String]
    /// A hash of the event's content: when Graph re-publishes the id with other content, the
    /// engine evaluates it again. Nil when the source cannot tell (updates are then ignored).
    var revision: String? { get }
}

extension RuleEvent {
    public var revision: String? { nil }
    public func field(at components: [String]) -> JSONValue? { field(components.joined(separator: ".")) }
    public func searchableTexts() -> [String] { [] }
}

/// A sign-in held as its original JSON: the shape replay files and test cases decode to.
public struct JSONRuleEvent: RuleEvent, Codable, Hashable {
    public var eventID: String
    public var eventTime: Date
    public var json: JSONValue

    public init(eventID: String, eventTime: Date, json: JSONValue) {
        self.eventID = eventID
        self.eventTime = eventTime
        self.json = json
    }

    public func field(_ path: String) -> JSONValue? { json.value(atPath: path) }

    public func field(at components: [String]) -> JSONValue? { json.value(at: components) }

    public var revision: String? { JSONRuleEvent.revision(of: json) }

    /// FNV-1a-128 of the canonical JSON (sorted keys), so key order does not count as a change.
    public static func revision(of json: JSONValue) -> String {
        StableHash.fnv1a128(bytes: json.canonicalData())
    }

    public func searchableTexts() -> [String] {
        var texts: [String] = []
        func walk(_ value: JSONValue) {
            switch value {
            case .string(let s): texts.append(s)
            case .array(let items): items.forEach(walk)
            case .object(let members): members.keys.sorted().forEach { walk(members[$0]!) }
            default: break
            }
        }
        walk(json)
        return texts
    }
}
