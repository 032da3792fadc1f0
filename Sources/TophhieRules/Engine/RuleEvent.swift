import Foundation
import TophhieJSON

/// What an evaluator needs of a sign-in: its id, its event time, any field by Graph JSON path,
/// every string it holds (for keyword searches) and a hash of its content.
///
/// Live polls, replay files and rule test cases all reach the evaluators through this one shape.
/// Every member is required, with no default: an event type that cannot answer one (keyword
/// texts above all) does not compile, rather than silently matching nothing.
public protocol RuleEvent: Sendable {
    /// The Graph `signIn.id`; duplicates across polls share it.
    var eventID: String { get }
    /// `createdDateTime`: every window is in this time, never arrival time.
    var eventTime: Date { get }
    /// The value at a path already split at its dots (`["status", "errorCode"]`), nil when
    /// absent. A path through an array of objects gives the array of each element's value
    /// (`JSONValue.value(at:)`).
    func field(at components: [String]) -> JSONValue?
    /// Every string value of the raw record, members in key order (`KeywordTexts.of`): what a
    /// Sigma keyword search looks through.
    func keywordTexts() -> [String]
    /// A hash of the event's content: when Graph re-publishes the id with other content, the
    /// evaluators take it again. Nil when the source cannot tell (updates are then ignored).
    var revision: String? { get }
}

extension RuleEvent {
    /// The value at a dotted Graph path (`status.errorCode`), nil when absent.
    public func field(_ path: String) -> JSONValue? {
        field(at: path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }
}

/// The strings a keyword search looks through, read alike from every kind of event.
package enum KeywordTexts {
    /// Every string value in `json`, depth first, an object's members in key order.
    public static func of(_ json: JSONValue) -> [String] {
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

    public func field(at components: [String]) -> JSONValue? { json.value(at: components) }

    public var revision: String? { JSONRuleEvent.revision(of: json) }

    /// FNV-1a-128 over the value's structure, members of an object combined in an order-free
    /// way, so key order does not count as a change. Walks the value directly: encoding each event as JSON first cost a third of
    /// a replay.
    public static func revision(of json: JSONValue) -> String {
        var state = StableHash.State()
        feed(json, into: &state)
        return state.digest
    }

    static func feed(_ value: JSONValue, into state: inout StableHash.State) {
        // A tag byte per kind and a terminator after strings keep different shapes apart.
        switch value {
        case .null: state.add(0x6E)
        case .bool(let b): state.add(b ? 0x74 : 0x66)
        case .int(let i):
            state.add(0x69)
            state.add(word: UInt64(bitPattern: i))
        case .double(let d):
            state.add(0x64)
            state.add(word: d.bitPattern)
        case .string(let s):
            state.add(0x73)
            state.add(s.utf8)
            state.add(0x00)
        case .array(let items):
            state.add(0x5B)
            for item in items { feed(item, into: &state) }
            state.add(0x5D)
        case .object(let members):
            // Each member hashed on its own and the results summed: independent of key order
            // without sorting the keys of every object of every event.
            var high: UInt64 = 0, low: UInt64 = 0
            for (key, member) in members {
                var part = StableHash.State()
                part.add(key.utf8)
                part.add(0x00)
                feed(member, into: &part)
                high &+= part.high
                low &+= part.low
            }
            state.add(0x7B)
            state.add(word: high)
            state.add(word: low)
            state.add(0x7D)
        }
    }

    public func keywordTexts() -> [String] { KeywordTexts.of(json) }
}
