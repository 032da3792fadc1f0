import Foundation
import TophhieJSON

/// Turns Graph signIn JSON objects into engine events.
public enum SignInEvents {
    /// The event for one signIn object: `id` and `createdDateTime` are required.
    /// - Throws: `SignInEventError` saying which is missing or malformed.
    public static func event(_ json: JSONValue) throws -> JSONRuleEvent {
        guard case .object = json else { throw SignInEventError("a sign-in must be a JSON object") }
        guard let id = json["id"]?.scalarText, !id.isEmpty else { throw SignInEventError("a sign-in has no 'id'") }
        guard let timeText = json["createdDateTime"]?.stringValue else {
            throw SignInEventError("sign-in '\(id)' has no 'createdDateTime'")
        }
        guard let time = GraphTimestamp.parse(timeText) else {
            throw SignInEventError("sign-in '\(id)' has createdDateTime '\(timeText)', which is not an ISO 8601 time such as 2024-05-01T10:00:00Z")
        }
        return JSONRuleEvent(eventID: id, eventTime: time, json: json)
    }
}

/// A sign-in object the engine cannot use.
public struct SignInEventError: Error, Sendable, CustomStringConvertible, LocalizedError {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
    public var errorDescription: String? { message }
}
