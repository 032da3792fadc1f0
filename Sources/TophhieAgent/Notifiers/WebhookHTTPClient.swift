import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One POST over URLSession, with the Linux pitfalls handled.
///
/// Redirects are refused (URLSession on Linux turns a redirected POST into a bodiless request),
/// authentication challenges are never waited on, and the deadline is enforced here because
/// URLSession's own timeouts on Linux truncate to whole seconds and ignore the resource limit.
final class WebhookHTTPClient: Sendable {
    struct Response: Sendable {
        var status: Int
        var retryAfter: String?
    }

    enum Failure: Error {
        case deadlineExceeded
        case network(URLError.Code, String)
    }

    private let session: URLSession

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        session = URLSession(configuration: configuration, delegate: RefuseRedirects(), delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Sends `request`, giving up after `deadline`.
    /// - Throws: `Failure.deadlineExceeded`, or `Failure.network` for transport errors.
    func send(_ request: URLRequest, deadline: Duration) async throws -> Response {
        var request = request
        // Whole seconds, above our own deadline, so libcurl never fires first.
        request.timeoutInterval = Double(deadline.components.seconds + 2)
        let attempt = Attempt()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
                let task = session.dataTask(with: request) { _, response, error in
                    if let error {
                        if attempt.timedOut {
                            continuation.resume(throwing: Failure.deadlineExceeded)
                        } else {
                            let code = (error as? URLError)?.code ?? .unknown
                            continuation.resume(throwing: Failure.network(code, Self.describe(code)))
                        }
                        attempt.finish()
                        return
                    }
                    guard let http = response as? HTTPURLResponse else {
                        continuation.resume(throwing: Failure.network(.badServerResponse, "no HTTP response"))
                        attempt.finish()
                        return
                    }
                    continuation.resume(returning: Response(status: http.statusCode, retryAfter: http.value(forHTTPHeaderField: "Retry-After")))
                    attempt.finish()
                }
                attempt.start(task, deadline: deadline)
            }
        } onCancel: {
            attempt.cancel()
        }
    }

    /// A transport error in words, without the URL (it may hold a credential).
    static func describe(_ code: URLError.Code) -> String {
        switch code {
        case .cannotConnectToHost: return "connection refused"
        case .cannotFindHost, .dnsLookupFailed: return "host not found"
        case .timedOut: return "timed out"
        case .networkConnectionLost: return "connection lost"
        case .notConnectedToInternet: return "no network"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return "TLS handshake or certificate check failed"
        case .cancelled: return "cancelled"
        case .badServerResponse: return "malformed response"
        default: return "network error \(code.rawValue)"
        }
    }
}

/// The task of one attempt and its deadline timer, shared by the completion handler, the timer
/// and cancellation.
private final class Attempt: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var timer: DispatchWorkItem?
    private var didTimeOut = false
    private var cancelled = false

    var timedOut: Bool {
        lock.lock(); defer { lock.unlock() }
        return didTimeOut
    }

    func start(_ task: URLSessionDataTask, deadline: Duration) {
        let timer = DispatchWorkItem { [weak self] in self?.expire() }
        lock.lock()
        self.task = task
        self.timer = timer
        let alreadyCancelled = cancelled
        lock.unlock()
        if alreadyCancelled { task.cancel() ; return }
        let nanoseconds = deadline.components.seconds * 1_000_000_000 + deadline.components.attoseconds / 1_000_000_000
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds)), execute: timer)
        task.resume()
    }

    private func expire() {
        lock.lock()
        didTimeOut = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }

    func finish() {
        lock.lock()
        let timer = self.timer
        self.timer = nil
        self.task = nil
        lock.unlock()
        timer?.cancel()
    }
}

/// Returns every redirect to the caller as its 3xx and answers challenges at once.
private final class RefuseRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
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
