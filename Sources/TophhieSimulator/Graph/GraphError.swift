import Foundation
import LoopbackHTTP
import TophhieJSON

/// A Microsoft Graph error in Graph's body shape:
/// `{"error":{"code","message","innerError":{"date","request-id","client-request-id"}}}`.
struct GraphError: Error, Sendable, Equatable {
    var status: Int
    var code: String
    var message: String
    var retryAfter: String?
    var extraHeaders: [String: String] = [:]

    func response(now: Date, trace: RequestTrace) -> HTTPResponse {
        var inner: [String: JSONValue] = [
            "date": .string(String(GraphTimestamp.filterText(now).dropLast())),
            "request-id": .string(trace.requestID),
            "client-request-id": .string(trace.clientRequestID),
        ]
        if status == 429 {
            inner["code"] = .string("429")
            inner["status"] = .string("429")
            inner["message"] = .string("Please retry after")
        }
        let body = JSONValue.object(["error": .object([
            "code": .string(code),
            "message": .string(message),
            "innerError": .object(inner),
        ])])
        var headers = trace.headers
        if let retryAfter { headers.append(("Retry-After", retryAfter)) }
        for (name, value) in extraHeaders.sorted(by: { $0.key < $1.key }) { headers.append((name, value)) }
        return .json(status, data: body.canonicalData(), headers: headers)
    }

    static let insufficientPrivileges = GraphError(status: 403, code: "Authorization_RequestDenied", message: "Insufficient privileges to complete the operation.")
    static let nonPremiumTenant = GraphError(status: 403, code: "Authentication_RequestFromNonPremiumTenantOrB2CTenant", message: "Neither tenant is B2C or tenant doesn't have premium license")
    static let unsupportedUserRole = GraphError(status: 403, code: "Authentication_RequestFromUnsupportedUserRole", message: "User is not in the allowed roles")
    static let invalidFilter = GraphError(status: 400, code: "BadRequest", message: "Invalid filter clause")

    static func throttled(retryAfter: String) -> GraphError {
        GraphError(status: 429, code: "TooManyRequests", message: "Please retry again later.", retryAfter: retryAfter)
    }

    static func invalidToken(_ message: String, authority: String) -> GraphError {
        GraphError(status: 401, code: "InvalidAuthenticationToken", message: message, extraHeaders: [
            "WWW-Authenticate": "Bearer realm=\"\", authorization_uri=\"\(authority)/oauth2/authorize\", client_id=\"00000003-0000-0000-c000-000000000000\"",
        ])
    }

    static func badRequest(_ message: String) -> GraphError {
        GraphError(status: 400, code: "Request_BadRequest", message: message)
    }

    static func server(status: Int, retryAfter: String?) -> GraphError {
        let code: String
        let message: String
        switch status {
        case 502: (code, message) = ("BadGateway", "The server, while acting as a gateway or proxy, received an invalid response.")
        case 503: (code, message) = ("ServiceUnavailable", "The service is temporarily unavailable. Please try again later.")
        case 504: (code, message) = ("GatewayTimeout", "The server, while acting as a proxy, did not receive a timely response from the upstream server.")
        case 429: (code, message) = ("TooManyRequests", "Please retry again later.")
        case 400..<500: (code, message) = ("BadRequest", "The request could not be processed.")
        default: (code, message) = ("UnknownError", "An internal server error occurred.")
        }
        return GraphError(status: status, code: code, message: message, retryAfter: retryAfter)
    }
}
