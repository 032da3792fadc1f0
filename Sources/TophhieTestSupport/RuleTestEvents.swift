import Foundation
import TophhieJSON
import TophhieRules

/// The repository's folders (`RepositoryFiles`), by the name the rule tests know them.
public typealias RepoPaths = RepositoryFiles

/// Builds sign-ins for tests.
public enum SignIn {
    public static let base = Date(timeIntervalSince1970: 1_714_557_600)  // 2024-05-01T10:00:00Z

    /// A sign-in `minutes` after 10:00 on 2024-05-01 with the given extra fields.
    public static func at(_ minutes: Double, id: String, _ fields: [String: JSONValue] = [:]) -> JSONRuleEvent {
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

    public static func failure(_ minutes: Double, id: String, code: Int64 = 50126) -> JSONRuleEvent {
        at(minutes, id: id, ["status": .object(["errorCode": .int(code)])])
    }

    /// JSON written in a test.
    /// - Throws: the parser's error, naming where the text is not JSON.
    public static func json(_ text: String) throws -> JSONValue {
        try JSONValue.parse(Data(text.utf8))
    }

    /// A sign-in written in a test as JSON.
    /// - Throws: the parser's error, or `SignInEventError` when it lacks an id or time.
    public static func event(_ text: String) throws -> JSONRuleEvent {
        try SignInEvents.event(json(text))
    }
}

/// Loads rules from YAML text held in a test.
public func loadRules(_ text: String, file: String = "test.yml") -> RuleSet {
    RuleLoader.load([RuleSource(path: file, text: text)])
}

/// 10:00 on 2024-05-01 plus `minutes`.
public func time(_ minutes: Double) -> Date { SignIn.base.addingTimeInterval(minutes * 60) }

extension RuleEvaluator {
    /// One poll: the next state and the alerts (`evaluate` without the late arrivals).
    public func process(_ state: EngineState, events: [any RuleEvent], now: Date, alertOnlyAfter: Date? = nil) -> (EngineState, [Alert]) {
        let outcome = evaluate(state, events: events, now: now, alertOnlyAfter: alertOnlyAfter)
        return (outcome.state, outcome.alerts)
    }
}

extension SignIn {
    /// A sign-in located at a city and its coordinates.
    public static func located(_ minutes: Double, _ id: String, city: String, _ lat: Double, _ lon: Double) -> JSONRuleEvent {
        at(minutes, id: id, ["location": .object(["city": .string(city), "geoCoordinates": .object(["latitude": .double(lat), "longitude": .double(lon)])])])
    }
}

/// Rules the engine tests share.
public enum SampleRules {
    /// Successful sign-ins, and travel between them faster than 900 km/h over 500 km or more.
    public static func travel(timespan: String) -> String {
        """
        title: ok
        id: ok
        logsource: {product: azure, service: signinlogs}
        detection: {selection: {ResultType: 0}, condition: selection}
        ---
        title: Travel
        id: travel
        correlation: {type: impossible_travel, rules: [ok], group-by: [userId], timespan: \(timespan), max-speed-kmh: 900, min-distance-km: 500}
        """
    }

    /// Failed sign-ins, and five of them within ten minutes for one user.
    public static let burst = """
    title: Failed sign-in
    id: failed
    logsource: {product: azure, service: signinlogs}
    detection:
        selection:
            ResultType: [50126, 50053]
        condition: selection
    ---
    title: Burst of failures
    id: burst
    author: Test Author
    tags: [attack.t1110]
    correlation:
        type: event_count
        rules: [failed]
        group-by: [userId]
        timespan: 10m
        condition: {gte: 5}
    level: high
    """
}
