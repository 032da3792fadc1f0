import Foundation

/// One HTTP/1.1 request as the server received it, body complete.
public struct HTTPRequest: Sendable {
    /// The method token as sent, e.g. `GET`.
    public var method: String
    /// The request target exactly as sent: path plus `?query` when present.
    public var target: String
    /// The percent-decoded path, without the query.
    public var path: String
    /// The raw query string after `?`, undecoded; empty when absent.
    public var rawQuery: String
    /// Query parameters in order, percent-decoded with `+` read as a space.
    public var queryItems: [(name: String, value: String)]
    /// Header fields in the order received, names as sent.
    public var headers: [(name: String, value: String)]
    /// The body, empty when the request had none.
    public var body: Data

    /// Creates a request value; the server builds these, tests may too.
    public init(
        method: String,
        target: String,
        headers: [(name: String, value: String)] = [],
        body: Data = Data()
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        let split = RequestTarget.split(target)
        self.path = split.path
        self.rawQuery = split.query
        self.queryItems = FormEncoding.decodePairs(split.query) ?? []
    }

    /// Query parameters by name; when a name repeats, the last value wins.
    public var query: [String: String] {
        var result: [String: String] = [:]
        for item in queryItems { result[item.name] = item.value }
        return result
    }

    /// The first value of the header named `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every value of the header named `name`, compared case-insensitively, in order.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// The body read as `application/x-www-form-urlencoded`; malformed pairs are skipped.
    ///
    /// When a name repeats, the last value wins.
    public func formFields() -> [String: String] {
        let text = String(decoding: body, as: UTF8.self)
        var result: [String: String] = [:]
        for pair in FormEncoding.decodePairs(text, lenient: true) ?? [] { result[pair.name] = pair.value }
        return result
    }
}

/// Splits a request target into its decoded path and raw query.
enum RequestTarget {
    static func split(_ target: String) -> (path: String, query: String) {
        var rest = Substring(target)
        // Absolute-form (`http://host/path`) is legal in HTTP/1.1; keep only the path and query.
        if !rest.hasPrefix("/"), let schemeEnd = rest.range(of: "://") {
            let afterScheme = rest[schemeEnd.upperBound...]
            rest = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }).map { afterScheme[$0...] } ?? "/"
        }
        let fragmentless = rest.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = fragmentless.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = parts.first.map(String.init) ?? ""
        let query = parts.count > 1 ? String(parts[1]) : ""
        return (FormEncoding.percentDecode(rawPath, plusIsSpace: false) ?? rawPath, query)
    }
}
