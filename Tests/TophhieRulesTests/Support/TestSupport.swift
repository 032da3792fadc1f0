import Foundation
@_exported import TophhieTestSupport
import TophhieJSON
@testable import TophhieRules

/// The repository's folders (`RepositoryFiles`), by the name these tests know them.
typealias RepoPaths = RepositoryFiles

/// Builds sign-ins for tests.
enum SignIn {
    static let base = Date(timeIntervalSince1970: 1_714_557_600)  // 2024-05-01T10:00:00Z

    /// A sign-in `minutes` after 10:00 on 2024-05-01 with the given extra fields.
    static func at(_ minutes: Double, id: String, _ fields: [String: JSONValue] = [:]) -> JSONRuleEvent {
        var object: [String: JSONValue] = [
            "id": .string(id),
            "userId": .string("u1"),
            "ipAddress": .string("203.0.113.9"),
            "status": .object(["errorCode": .int(0)]),
        ]
        for (k, v) in fields { object[k] = v }
        let time = base.addingTimeInterval(minutes * 60)
        object["createdDateTime"] = .string(GraphTimestamp.graphText(time))
        return JSONRuleEvent(eventID: id, eventTime: time, json: .object(object))
    }

    static func failure(_ minutes: Double, id: String, code: Int64 = 50126) -> JSONRuleEvent {
        at(minutes, id: id, ["status": .object(["errorCode": .int(code)])])
    }

    static func json(_ text: String) -> JSONValue {
        try! JSONValue.parse(Data(text.utf8))
    }

    static func event(_ text: String) -> JSONRuleEvent {
        try! SignInEvents.event(json(text))
    }
}

/// Loads rules from YAML text held in a test.
func loadRules(_ text: String, file: String = "test.yml") -> RuleSet {
    RuleLoader.load([RuleSource(path: file, text: text)])
}

func time(_ minutes: Double) -> Date { SignIn.base.addingTimeInterval(minutes * 60) }
