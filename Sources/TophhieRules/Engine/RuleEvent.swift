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
    /// The value at an interned path: what the engine and compiled rules call.
    func field(slot: FieldSlot) -> JSONValue?
    /// `field(slot:)?.scalarText`: what groups, baselines and kept values read. An event that
    /// holds its values can hand the text over without copying the value around it first.
    func text(slot: FieldSlot) -> String?
    /// Every string in the event, for Sigma keyword searches that look at the whole record.
    func searchableTexts() -> [String]
    /// A hash of the event's content: when Graph re-publishes the id with other content, the
    /// engine evaluates it again. Nil when the source cannot tell (updates are then ignored).
    var revision: String? { get }
}

extension RuleEvent {
    public var revision: String? { nil }
    public func field(at components: [String]) -> JSONValue? { field(components.joined(separator: ".")) }
    public func field(slot: FieldSlot) -> JSONValue? { field(at: slot.components) }
    public func text(slot: FieldSlot) -> String? { field(slot: slot)?.scalarText }
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
            withUnsafeBytes(of: i.littleEndian) { state.add($0) }
        case .double(let d):
            state.add(0x64)
            withUnsafeBytes(of: d.bitPattern.littleEndian) { state.add($0) }
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
            withUnsafeBytes(of: high.littleEndian) { state.add($0) }
            withUnsafeBytes(of: low.littleEndian) { state.add($0) }
            state.add(0x7D)
        }
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
