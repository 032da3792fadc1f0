import Foundation
import TophhieJSON
import YAMLReader

/// One example from a `*.tests.yml` file: the polls to feed and the alerts that must result.
package struct RuleTestCase: Sendable {
    package struct Poll: Sendable {
        public var at: Date
        public var events: [JSONRuleEvent]
    }

    public var name: String
    public var line: Int
    public var polls: [Poll]
    /// Learning mode: alerts only for events after this instant.
    public var alertAfter: Date?
    /// Each expected alert as the sorted ids of its events; empty means "must not fire".
    public var expected: [[String]]
}

/// A `*.tests.yml` file: which rule it checks and its cases.
///
/// ```yaml
/// rule: failure-burst            # alerts of this rule id are compared
/// defaults: {userId: u1}         # merged into every event (event keys win)
/// cases:
///   - name: five failures in ten minutes fire once
///     events:                    # one poll at the latest event time…
///       - {id: f1, createdDateTime: "2024-05-01T10:00:00Z", status: {errorCode: 50126}}
///     polls:                     # …or several: [{at: time, events: [...]}]
///     alert-after: "…"           # optional learning mode
///     expect:                    # one list of event ids per alert; [] = must not fire
///       - [f1, f2, f3, f4, f5]
/// ```
public struct RuleTestFile: Sendable {
    public var file: String
    public var rule: String
    package var cases: [RuleTestCase]

    /// Parses a test file.
    /// - Throws: `RuleDiagnostic` (as `RuleTestFileError`) at the offending node.
    public init(source: RuleSource) throws {
        file = source.path
        let root: YAMLNode
        do {
            root = try YAMLReader.document(source.text)
        } catch let error as YAMLError {
            throw RuleTestFileError(RuleDiagnostic(.error, file: file, line: error.mark.line, column: error.mark.column, message: error.message))
        }
        let file = self.file
        func fail(_ node: YAMLNode, _ message: String) -> RuleTestFileError {
            RuleTestFileError(RuleDiagnostic(.error, file: file, line: node.mark.line, column: node.mark.column, message: message))
        }
        guard root.mapping != nil, let ruleNode = root.mappingValue(forKey: "rule"), let rule = ruleNode.scalarText else {
            throw fail(root, "a test file needs 'rule: <rule id>' and 'cases'")
        }
        self.rule = rule
        let defaults = try root.mappingValue(forKey: "defaults").map { try RuleTestFile.json($0, fail) } ?? .object([:])
        guard let casesNode = root.mappingValue(forKey: "cases"), let items = casesNode.sequence, !items.isEmpty else {
            throw fail(root, "'cases' must be a non-empty list")
        }
        var cases: [RuleTestCase] = []
        for item in items {
            guard item.mapping != nil else { throw fail(item, "a case must be a mapping with name, events (or polls) and expect") }
            let name = item.mappingValue(forKey: "name")?.scalarText ?? "case at line \(item.mark.line)"
            func events(_ node: YAMLNode) throws -> [JSONRuleEvent] {
                guard let list = node.sequence else { throw fail(node, "'events' must be a list of sign-ins") }
                return try list.map { eventNode in
                    let json = RuleTestFile.merged(defaults, try RuleTestFile.json(eventNode, fail))
                    do { return try SignInEvents.event(json) } catch let error as SignInEventError { throw fail(eventNode, error.message) }
                }
            }
            func time(_ node: YAMLNode, _ what: String) throws -> Date {
                guard let text = node.scalarText, let date = GraphTimestamp.parse(text) else {
                    throw fail(node, "'\(what)' must be an ISO 8601 time such as 2024-05-01T10:00:00Z")
                }
                return date
            }
            var polls: [RuleTestCase.Poll] = []
            if let pollsNode = item.mappingValue(forKey: "polls") {
                guard let list = pollsNode.sequence else { throw fail(pollsNode, "'polls' must be a list of {at, events}") }
                for poll in list {
                    guard let at = poll.mappingValue(forKey: "at") else { throw fail(poll, "a poll needs 'at'") }
                    polls.append(RuleTestCase.Poll(at: try time(at, "at"), events: try poll.mappingValue(forKey: "events").map(events) ?? []))
                }
            } else if let eventsNode = item.mappingValue(forKey: "events") {
                let list = try events(eventsNode)
                let at = try item.mappingValue(forKey: "now").map { try time($0, "now") } ?? list.map(\.eventTime).max() ?? Date(timeIntervalSince1970: 0)
                polls = [RuleTestCase.Poll(at: at, events: list)]
            } else {
                throw fail(item, "case '\(name)' needs 'events' or 'polls'")
            }
            guard let expectNode = item.mappingValue(forKey: "expect"), let expectList = expectNode.sequence else {
                throw fail(item, "case '\(name)' needs 'expect': a list of alerts, each a list of event ids ([] when nothing may fire)")
            }
            var expected: [[String]] = []
            for alert in expectList {
                guard let ids = alert.sequence?.compactMap(\.scalarText) else { throw fail(alert, "each expected alert is a list of event ids") }
                expected.append(ids.sorted())
            }
            let alertAfter = try item.mappingValue(forKey: "alert-after").map { try time($0, "alert-after") }
            cases.append(RuleTestCase(name: name, line: item.mark.line, polls: polls, alertAfter: alertAfter, expected: expected))
        }
        self.cases = cases
    }

    /// YAML to JSON with the core schema for plain scalars; quoted scalars stay strings.
    static func json(_ node: YAMLNode, _ fail: (YAMLNode, String) -> RuleTestFileError) throws -> JSONValue {
        switch node.kind {
        case .mapping(let pairs):
            var object: [String: JSONValue] = [:]
            for pair in pairs {
                guard let key = pair.key.scalarText else { throw fail(pair.key, "keys must be plain text") }
                object[key] = try json(pair.value, fail)
            }
            return .object(object)
        case .sequence(let items):
            return .array(try items.map { try json($0, fail) })
        case .scalar(let scalar):
            switch RuleDocumentReader.ruleValue(scalar) {
            case .null: return .null
            case .bool(let b): return .bool(b)
            case .int(let i): return .int(i)
            case .double(let d): return .double(d)
            case .string(let s): return .string(s)
            }
        }
    }

    static func merged(_ base: JSONValue, _ overlay: JSONValue) -> JSONValue {
        guard case .object(var result) = base, case .object(let top) = overlay else { return overlay }
        for (key, value) in top {
            result[key] = result[key].map { merged($0, value) } ?? value
        }
        return .object(result)
    }
}

/// A test file that cannot be read, located like any rule diagnostic.
package struct RuleTestFileError: Error, Sendable, CustomStringConvertible {
    public var diagnostic: RuleDiagnostic
    init(_ diagnostic: RuleDiagnostic) { self.diagnostic = diagnostic }
    public var description: String { diagnostic.description }
}
