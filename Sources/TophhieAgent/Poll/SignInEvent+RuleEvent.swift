import Foundation
import TophhieAuth
import TophhieJSON
import TophhieRules

/// Live sign-ins feed the engine directly: the id, the event time and the original JSON.
extension TophhieSignInEvent: RuleEvent {
    public var eventID: String { id }
    public var eventTime: Date { createdDateTime }
    public var revision: String? { JSONRuleEvent.revision(of: json) }
    // Pre-split paths read the tree directly; the default joined them and split them again.
    public func field(at components: [String]) -> JSONValue? { json.value(at: components) }
}
