import Foundation
import TophhieAuth
import TophhieJSON
import TophhieRules

/// The sign-ins a poll keeps feed the evaluators as the live events they were read from: the
/// same answers at the kept paths, the same keyword texts where the record was kept whole, and
/// the whole record's revision (a stored property).
extension KeptSignIn: RuleEvent {
    public var eventID: String { id }
    public var eventTime: Date { createdDateTime }
    public func field(at components: [String]) -> JSONValue? { value(at: components) }
    /// Every string of the record where it was kept whole (a poll keeps records whole when a
    /// rule searches keywords); of a record kept in part, the strings of what was kept.
    public func keywordTexts() -> [String] {
        if let record { return KeywordTexts.of(record) }
        return keptValues.flatMap(KeywordTexts.of)
    }
}
