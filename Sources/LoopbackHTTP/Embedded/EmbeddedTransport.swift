import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TophhieSystem

/// An `HTTPTransport` that hands each request to a handler in-process: no socket, no URLSession,
/// no real-time deadline.
///
/// The idea of swift-nio's `EmbeddedChannel`: the code under test speaks to the same handler the
/// loopback server would run, and time is the injected clock's. A response's `delay` is slept on
/// that clock (so a delay past the deadline fails as a real transport's deadline does, at once in
/// test time), and faults become the errors a real transport gives: a dropped connection or a body
/// shorter than its `Content-Length` is `.connectionLost`, bytes that are not an HTTP response are
/// `.badResponse`. The wire suite checks these against `URLSessionTransport` over loopback.
public struct EmbeddedTransport: HTTPTransport {
    private let clock: any TophhieClock
    private let handler: LoopbackHTTPServer.Handler

    /// - Parameters:
    ///   - clock: where delays are slept; a `ManualClock` makes them instant and recorded.
    ///   - handler: answers each request, as it would behind `LoopbackHTTPServer`.
    public init(clock: any TophhieClock, handler: @escaping LoopbackHTTPServer.Handler) {
        self.clock = clock
        self.handler = handler
    }

    public func send(_ request: URLRequest, deadline: Double) async throws -> HTTPReply {
        try Task.checkCancellation()
        let url = request.url
        let response = await handler(Self.serverRequest(request))
        if response.delay > 0 {
            if response.delay >= deadline {
                try await clock.sleep(seconds: deadline)
                throw HTTPTransportError.deadline(url, deadline)
            }
            try await clock.sleep(seconds: response.delay)
        }
        try Task.checkCancellation()
        switch response.fault {
        case .dropConnection:
            throw HTTPTransportError.connectionLost(url)
        case .rawBytes(let bytes):
            return try Self.parse(bytes, url: url, isHead: request.httpMethod == "HEAD")
        case nil:
            var headers: [String: String] = [:]
            for (name, value) in response.headers {
                let key = name.lowercased()
                headers[key] = headers[key].map { $0 + ", " + value } ?? value
            }
            headers["content-length"] = String(response.body.count)
            return HTTPReply(status: response.status, headers: headers, body: request.httpMethod == "HEAD" ? Data() : response.body)
        }
    }

    /// The request as the server would have decoded it from the wire.
    static func serverRequest(_ request: URLRequest) -> HTTPRequest {
        var target = "/"
        if let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            if let query = components.percentEncodedQuery { target += "?" + query }
        }
        var headers: [(name: String, value: String)] = []
        if let host = request.url?.host { headers.append(("Host", host + (request.url?.port.map { ":\($0)" } ?? ""))) }
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
            headers.append((name, value))
        }
        return HTTPRequest(method: request.httpMethod ?? "GET", target: target, headers: headers, body: request.httpBody ?? Data())
    }

    /// Reads raw response bytes as a client would: a status line, headers, and a body that must be
    /// as long as its `Content-Length`.
    static func parse(_ bytes: Data, url: URL?, isHead: Bool) throws -> HTTPReply {
        let separator = Data("\r\n\r\n".utf8)
        guard let end = bytes.range(of: separator) else {
            throw bytes.isEmpty ? HTTPTransportError.connectionLost(url) : HTTPTransportError(.badResponse, "malformed response from \(HTTPTransportError.origin(url))")
        }
        let head = String(decoding: bytes[bytes.startIndex..<end.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]), (100...599).contains(status) else {
            throw HTTPTransportError(.badResponse, "malformed response from \(HTTPTransportError.origin(url))")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else {
                throw HTTPTransportError(.badResponse, "malformed response from \(HTTPTransportError.origin(url))")
            }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        let body = Data(bytes[end.upperBound...])
        if !isHead, let declared = headers["content-length"].flatMap({ Int($0) }) {
            guard body.count >= declared else { throw HTTPTransportError.connectionLost(url) }
            return HTTPReply(status: status, headers: headers, body: body.prefix(declared))
        }
        return HTTPReply(status: status, headers: headers, body: isHead ? Data() : body)
    }
}
