import Foundation

/// What the server sends back for one request, including deliberate faults for tests.
public struct HTTPResponse: Sendable {
    /// A way to misbehave instead of sending a well-formed response.
    public enum Fault: Sendable, Equatable {
        /// Close the connection without sending a byte (the peer sees a reset or end of stream).
        case dropConnection
        /// Send exactly these bytes, then close: for malformed status lines, truncated bodies and the like.
        case rawBytes(Data)
    }

    /// The status code, e.g. 200.
    public var status: Int
    /// Header fields to send; `Content-Length` and `Connection` are added by the server.
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: Data
    /// Seconds to wait before replying (or before the fault), so clients' timeouts can be exercised.
    public var delay: Double
    /// When set, the server sends this instead of the status, headers and body.
    public var fault: Fault?

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data(), delay: Double = 0, fault: Fault? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.fault = fault
    }

    /// A JSON response from bytes that are already JSON (or deliberately not).
    public static func json(_ status: Int, data: Data, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")] + headers, body: data)
    }

    /// A JSON response encoding `value` with sorted keys; a value that cannot be encoded gives a 500.
    public static func json(_ status: Int, _ value: some Encodable, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else {
            return .text(500, "response could not be encoded as JSON")
        }
        return .json(status, data: data, headers: headers)
    }

    /// A plain-text response.
    public static func text(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers, body: Data(text.utf8))
    }

    /// A response with no body, e.g. 204.
    public static func empty(_ status: Int, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers)
    }

    /// Closes the connection without replying.
    public static var dropConnection: HTTPResponse {
        HTTPResponse(status: 0, fault: .dropConnection)
    }

    /// Sends `bytes` verbatim and closes.
    public static func raw(_ bytes: Data) -> HTTPResponse {
        HTTPResponse(status: 0, fault: .rawBytes(bytes))
    }

    /// This response, sent after waiting `seconds`.
    public func delayed(by seconds: Double) -> HTTPResponse {
        var copy = self
        copy.delay = seconds
        return copy
    }

    /// The first value of the header named `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The bytes on the wire for a well-formed response: status line, headers, blank line, body.
    /// - Parameter keepOpen: announce `Connection: keep-alive` instead of `close`.
    func serialized(includeBody: Bool, keepOpen: Bool = false) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(HTTPStatusText.reason(for: status))\r\n"
        for (name, value) in headers {
            let lower = name.lowercased()
            if lower == "content-length" || lower == "connection" || lower == "transfer-encoding" { continue }
            head += "\(HTTPResponse.clean(name)): \(HTTPResponse.clean(value))\r\n"
        }
        head += "Content-Length: \(body.count)\r\nConnection: \(keepOpen ? "keep-alive" : "close")\r\n\r\n"
        var bytes = Array(head.utf8)
        if includeBody { bytes.append(contentsOf: body) }
        return bytes
    }

    /// Strips CR and LF so a header value can never split the response.
    private static func clean(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
    }
}

/// Reason phrases for the statuses this server and its users send.
enum HTTPStatusText {
    static func reason(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}
