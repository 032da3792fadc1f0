import Foundation
import TophhieSystem

/// The ids Microsoft support asks for when a Graph call fails: Graph's `request-id`, the
/// `client-request-id` the client sent (Graph echoes it), and the time Graph stamped.
public struct GraphRequestIDs: Sendable, Equatable, Hashable {
    public var requestID: String?
    public var clientRequestID: String?
    public var date: String?

    public init(requestID: String? = nil, clientRequestID: String? = nil, date: String? = nil) {
        self.requestID = requestID
        self.clientRequestID = clientRequestID
        self.date = date
    }

    /// Read from the reply headers, else from the error body's `innerError`, keeping only values
    /// shaped like ids or timestamps: they come from the network and end up in messages.
    /// - Parameter sent: the `client-request-id` this request carried, used when Graph echoed none.
    static func from(_ reply: HTTPReply, sent: String?) -> GraphRequestIDs {
        // Only an error body has an `innerError`: parsing a 2xx body for it parsed every page of
        // sign-ins twice, a sixth of a poll with nothing new.
        let inner = (200..<300).contains(reply.status) ? nil : GraphErrorBody.innerError(in: reply.body)
        return GraphRequestIDs(
            requestID: clean(reply.header("request-id")) ?? clean(inner?["request-id"]),
            clientRequestID: clean(reply.header("client-request-id")) ?? clean(inner?["client-request-id"]) ?? clean(sent),
            date: clean(inner?["date"]))
    }

    /// Letters, digits, `-`, `:`, `.` and `T`/`Z`; at most 64 characters.
    private static func clean(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 64,
              value.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-:.".unicodeScalars.contains($0)) })
        else { return nil }
        return value
    }

    /// ` (request-id …, client-request-id …, date …)`, or empty when Graph sent none.
    var suffix: String {
        let parts = [requestID.map { "request-id \($0)" }, clientRequestID.map { "client-request-id \($0)" }, date.map { "date \($0)" }].compactMap { $0 }
        return parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))"
    }
}
