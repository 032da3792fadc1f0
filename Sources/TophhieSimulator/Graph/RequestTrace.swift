import Foundation
import LoopbackHTTP

/// The ids Graph puts on every reply: its own `request-id`, and the caller's `client-request-id`
/// echoed back (Graph makes one up when the caller sent none or one that is not a GUID).
struct RequestTrace: Sendable, Equatable {
    let requestID: String
    let clientRequestID: String

    init(_ request: HTTPRequest, requestID: String) {
        self.requestID = requestID
        if let sent = request.header("client-request-id"), UUID(uuidString: sent) != nil {
            clientRequestID = sent
        } else {
            clientRequestID = requestID
        }
    }

    /// The reply headers Graph sends with these ids.
    var headers: [(name: String, value: String)] {
        [("request-id", requestID), ("client-request-id", clientRequestID)]
    }
}
