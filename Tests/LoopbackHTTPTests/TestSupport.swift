import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackHTTP

/// A URLSession that fails fast instead of hanging a test.
func makeSession(timeout: TimeInterval = 30) -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout
    configuration.timeoutIntervalForResource = timeout
    return URLSession(configuration: configuration)
}

/// Starts a server with `handler`, runs `body`, and always stops the server.
@discardableResult
func withServer<T>(
    readTimeout: Double = 10,
    keepsConnectionsOpen: Bool = false,
    _ handler: @escaping LoopbackHTTPServer.Handler,
    _ body: (LoopbackHTTPServer, UInt16) async throws -> T
) async throws -> T {
    let server = LoopbackHTTPServer(readTimeout: readTimeout, keepsConnectionsOpen: keepsConnectionsOpen, handler: handler)
    let port = try server.start()
    do {
        let result = try await body(server, port)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// The status line and body of a raw HTTP response.
struct RawReply {
    var statusLine: String
    var body: String

    init(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        statusLine = text.components(separatedBy: "\r\n").first ?? ""
        body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    }
}

/// A one-shot gate tests open from one request and wait on from another.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }
}

/// Raw socket work runs on its own thread: blocking reads inside Swift concurrency's small pool
/// would starve the very server handlers the test is waiting for.
func rawExchange(port: UInt16, bytes: [UInt8], halfClose: Bool = true, readTimeout: Int = 5) async -> [UInt8]? {
    await withCheckedContinuation { continuation in
        Thread {
            continuation.resume(returning: RawSocket.exchange(port: port, bytes: bytes, halfClose: halfClose, readTimeout: readTimeout))
        }.start()
    }
}

/// Whether the port accepts connections, checked off the concurrency pool.
func canConnect(port: UInt16) async -> Bool {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: RawSocket.canConnect(port: port)) }.start()
    }
}
