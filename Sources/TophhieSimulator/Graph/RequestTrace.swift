import Foundation
import LoopbackHTTP
import TophhieSystem

/// The ids Graph puts on every reply: its own `request-id`, and the caller's `client-request-id`
/// echoed back (Graph makes one up when the caller sent none or one that is not a GUID).
struct RequestTrace: Sendable, Equatable {
    let requestID: String
    let clientRequestID: String
    /// The tenant's time when it answered, sent as `Date`, as every HTTP server does.
    let date: Date

    init(_ request: HTTPRequest, requestID: String, date: Date) {
        self.requestID = requestID
        self.date = date
        if let sent = request.header("client-request-id"), UUID(uuidString: sent) != nil {
            clientRequestID = sent
        } else {
            clientRequestID = requestID
        }
    }

    /// The reply headers Graph sends with these ids.
    var headers: [(name: String, value: String)] {
        [("request-id", requestID), ("client-request-id", clientRequestID), ("Date", RetryAfter.httpDateText(date))]
    }
}
