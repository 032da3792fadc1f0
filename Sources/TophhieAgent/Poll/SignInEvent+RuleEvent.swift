import Foundation
import TophhieAuth
import TophhieRules

/// Live sign-ins feed the engine directly: the id, the event time and the original JSON.
extension TophhieSignInEvent: RuleEvent {
    public var eventID: String { id }
    public var eventTime: Date { createdDateTime }
    public var revision: String? { JSONRuleEvent.revision(of: json) }
}
