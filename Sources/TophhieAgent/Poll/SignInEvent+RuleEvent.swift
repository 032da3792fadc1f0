import Foundation
import TophhieAuth
import TophhieJSON
import TophhieRules

/// Live sign-ins feed the evaluators directly: the id, the event time and the original JSON,
/// every string of which a keyword search reads, as replay's events are read.
extension TophhieSignInEvent: RuleEvent {
    public var eventID: String { id }
    public var eventTime: Date { createdDateTime }
    /// The record's, as replay's `JSONRuleEvent` gives it.
    public var revision: String? { JSONRuleEvent.revision(of: json) }
    public func field(at components: [String]) -> JSONValue? { json.value(at: components) }
    public func keywordTexts() -> [String] { KeywordTexts.of(json) }
}
