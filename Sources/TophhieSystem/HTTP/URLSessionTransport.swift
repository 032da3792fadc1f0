import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession with redirects refused (a bearer token must never follow a redirect to another
/// host) and an overall deadline of our own, because libcurl-backed timeouts on Linux are
/// truncated to whole seconds and the resource timeout is ignored.
///
/// The session is made at the first request, not with the transport: every command is given a
/// transport, and on Linux making a session's configuration has Foundation list the binary's
/// directory and create `~/.cache/org.swift.foundation.URLCache/…` and `~/.local/share/…` (its
/// shared cookie store and cache), which a command that never goes online should not do.
public final class URLSessionTransport: NSObject, HTTPTransport, URLSessionTaskDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var made: URLSession?

    public override init() {
        super.init()
    }

    /// Whether the session has been made (a request was sent).
    public var hasSession: Bool { lock.withLock { made != nil } }

    /// The session, made on first use.
    private var session: URLSession {
        lock.withLock {
            if let made { return made }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpCookieAcceptPolicy = .never
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            let session = URLSession(configuration: configuration, delegate: RedirectRefuser(), delegateQueue: nil)
            made = session
            return session
        }
    }

    deinit {
        // A session keeps itself and its delegate alive until invalidated.
        made?.finishTasksAndInvalidate()
    }

    /// URLSession on Linux keeps the socket's write source it made while connecting
    /// (swift-corelibs-foundation `_MultiHandle` only tears sources down on removal), so until
    /// the first reply on a connection is whole, that source fires without pause: about three
    /// quarters of a core for as long as the server takes. A reused connection does not pay it.
    public var waitsBusilyOnNewConnections: Bool {
        #if os(Linux)
        true
        #else
        false
        #endif
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
                        once.resume(continuation, with: .failure(Self.describe(error, url: url)))
                        return
                    }
                    guard let http = response as? HTTPURLResponse else {
                        once.resume(continuation, with: .failure(HTTPTransportError(.badResponse, "no HTTP response from \(HTTPTransportError.origin(url))")))
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
                    if once.resume(continuation, with: .failure(HTTPTransportError.deadline(url, deadline))) {
                        task.cancel()
                    }
                }
                task.resume()
            }
        } onCancel: {
            once.cancel()
        }
    }

    // Errors name the origin only: a URL's query can carry a filter with the user's id.
    static func describe(_ error: any Error, url: URL?) -> HTTPTransportError {
        let nsError = error as NSError
        let origin = HTTPTransportError.origin(url)
        if nsError.domain == NSURLErrorDomain {
            switch nsError.code {
            case NSURLErrorCannotConnectToHost: return HTTPTransportError(.cannotConnect, "cannot connect to \(origin)")
            case NSURLErrorTimedOut: return HTTPTransportError(.timedOut, "timed out talking to \(origin)")
            case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return HTTPTransportError(.hostNotFound, "cannot find the host of \(origin)")
            case NSURLErrorNetworkConnectionLost: return .connectionLost(url)
            case NSURLErrorCancelled: return HTTPTransportError(.cancelled, "the request to \(origin) was cancelled")
            case NSURLErrorBadServerResponse: return HTTPTransportError(.badResponse, "malformed response from \(origin)")
            // What libcurl-backed URLSession gives, as the embedded-transport contract test shows:
            // a body cut short of its Content-Length is "unknown" (curl's partial-file error), and
            // bytes that are no HTTP response are "unsupported URL" (curl refuses HTTP/0.9). Our
            // URLs are checked http(s) before sending, so neither can mean anything else here.
            case NSURLErrorUnknown: return .connectionLost(url)
            case NSURLErrorUnsupportedURL: return HTTPTransportError(.badResponse, "malformed response from \(origin)")
            case NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateUntrusted, NSURLErrorServerCertificateHasBadDate,
                 NSURLErrorServerCertificateNotYetValid, NSURLErrorServerCertificateHasUnknownRoot, NSURLErrorClientCertificateRejected:
                return HTTPTransportError(.tlsFailure, "TLS handshake or certificate check with \(origin) failed")
            default: break
            }
        }
        return HTTPTransportError(.other, "request to \(origin) failed (\(nsError.domain) \(nsError.code))")
    }
}

/// Refuses every redirect so the caller sees the 3xx itself (URLSession on Linux would also turn
/// a redirected POST into a bodiless request), and answers authentication challenges at once.
private final class RedirectRefuser: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    // No stored state: safe to share.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        completionHandler(.performDefaultHandling, nil)
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
