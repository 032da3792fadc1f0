import Foundation

/// One detection rule's match of one event, on its own: no windows, no suppression, no
/// correlation. What `rules match` prints, and what a Sigma backend's query would select.
package struct DetectionMatch: Sendable, Hashable {
    public var ruleID: String
    public var title: String
    public var eventID: String
    public var eventTime: Date

    public init(ruleID: String, title: String, eventID: String, eventTime: Date) {
        self.ruleID = ruleID
        self.title = title
        self.eventID = eventID
        self.eventTime = eventTime
    }
}
