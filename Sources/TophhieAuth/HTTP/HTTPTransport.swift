import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response as the clients need it: status, headers with lower-cased names, body.
public struct HTTPReply: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Sends one HTTP request and waits at most `deadline` seconds for the whole reply.
public protocol HTTPTransport: Sendable {
    /// - Throws: `TophhieAuthError.network` on a connection failure or when the deadline passes.
    func send(_ request: URLRequest, deadline: Double) async throws -> HTTPReply
}

/// URLSession with redirects refused (a bearer token must never follow a redirect to another
/// host) and an overall deadline of our own, because libcurl-backed timeouts on Linux are
/// truncated to whole seconds and the resource timeout is ignored.
public final class URLSessionTransport: NSObject, HTTPTransport, URLSessionTaskDelegate, @unchecked Sendable {
    private let session: URLSession

    public override init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let holder = RedirectRefuser()
        session = URLSession(configuration: configuration, delegate: holder, delegateQueue: nil)
        super.init()
    }

    public func send(_ request: URLRequest, deadline: Double) async throws -> HTTPReply {
        var prepared = request
        // A backstop only: our own timer below is the real deadline.
        prepared.timeoutInterval = max(1, ceil(deadline) + 1)
        let request = prepared
        let url = request.url
        let once = ResumeOnce()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPReply, any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        once.resume(continuation, with: .failure(TophhieAuthError.network(Self.describe(error, url: url))))
                        return
                    }
                    guard let http = response as? HTTPURLResponse else {
                        once.resume(continuation, with: .failure(TophhieAuthError.network("no HTTP response from \(Self.origin(url))")))
                        return
                    }
                    var headers: [String: String] = [:]
                    for (key, value) in http.allHeaderFields {
                        if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
                    }
                    once.resume(continuation, with: .success(HTTPReply(status: http.statusCode, headers: headers, body: data ?? Data())))
                }
                once.attach(task)
                DispatchQueue.global().asyncAfter(deadline: .now() + deadline) {
                    if once.resume(continuation, with: .failure(TophhieAuthError.network("no complete reply from \(Self.origin(url)) within \(Self.seconds(deadline))"))) {
                        task.cancel()
                    }
                }
                task.resume()
            }
        } onCancel: {
            once.cancel()
        }
    }

    static func origin(_ url: URL?) -> String {
        guard let url, let host = url.host else { return "the server" }
        return (url.scheme ?? "https") + "://" + host + (url.port.map { ":\($0)" } ?? "")
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    // Errors name the origin only: a URL's query can carry a filter with the user's id.
    static func describe(_ error: any Error, url: URL?) -> String {
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain {
            switch nsError.code {
            case NSURLErrorCannotConnectToHost: return "cannot connect to \(origin(url))"
            case NSURLErrorTimedOut: return "timed out talking to \(origin(url))"
            case NSURLErrorCannotFindHost: return "cannot find the host of \(origin(url))"
            case NSURLErrorNetworkConnectionLost: return "the connection to \(origin(url)) was lost"
            case NSURLErrorCancelled: return "the request to \(origin(url)) was cancelled"
            default: break
            }
        }
        return "request to \(origin(url)) failed (\(nsError.domain) \(nsError.code))"
    }
}

/// Refuses every redirect so the caller sees the 3xx itself.
private final class RedirectRefuser: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

/// Resumes a continuation exactly once, whichever of reply, deadline or cancellation comes first.
private final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    private var task: URLSessionDataTask?
    private var cancelled = false

    func attach(_ task: URLSessionDataTask) {
        let cancelNow = lock.withLock { () -> Bool in
            self.task = task
            return cancelled
        }
        if cancelNow { task.cancel() }
    }

    @discardableResult
    func resume(_ continuation: CheckedContinuation<HTTPReply, any Error>, with result: Result<HTTPReply, any Error>) -> Bool {
        let first = lock.withLock { () -> Bool in
            if done { return false }
            done = true
            return true
        }
        if first { continuation.resume(with: result) }
        return first
    }

    func cancel() {
        let task = lock.withLock { () -> URLSessionDataTask? in
            cancelled = true
            return self.task
        }
        task?.cancel()
    }
}
