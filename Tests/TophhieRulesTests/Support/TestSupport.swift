import Foundation
import TophhieJSON
@testable import TophhieRules

/// Paths relative to the repository, found from this file.
enum RepoPaths {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return url
    }()
    static var rules: String { root.appendingPathComponent("rules").path }
    static var sigma: String { root.appendingPathComponent("../shared/sigma").standardized.path }
}

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
