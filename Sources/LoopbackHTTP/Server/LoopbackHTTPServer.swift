import Foundation
import TophhieSystem

/// A small HTTP/1.1 server bound to 127.0.0.1, for simulated services and test receivers.
///
/// By default each connection carries one request and is closed after the response
/// (`Connection: close`); with `keepsConnectionsOpen` an HTTP/1.1 client may send more, one after
/// another, as it would to Graph. A kept connection left silent for `readTimeout` is closed.
/// Connections are served concurrently, each on its own thread, so a slow handler never blocks
/// another request. Request heads over `maxHeaderBytes` get 431, bodies over `maxBodyBytes` get
/// 413, chunked request bodies get 411, and malformed requests get 400; none of them can crash it.
///
/// Socket reads run on dedicated threads; the handler runs as a task on an executor the server
/// owns (not Swift's cooperative pool), so a busy pool never delays an answer. `stop()` is async
/// and waits for the port to close; dropping the last reference only starts the stop.
public final class LoopbackHTTPServer: Service {
    /// Answers one request.
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    private let handler: Handler
    private let limits: HTTPRequestDecoder.Limits
    private let readTimeout: Double
    private let maxConnections: Int
    private let keepsConnectionsOpen: Bool
    private let state = ServerState()
    private let executor: HandlerExecutor

    /// Creates a stopped server.
    /// - Parameters:
    ///   - maxHeaderBytes: the largest request line plus headers accepted (431 above it).
    ///   - maxBodyBytes: the largest `Content-Length` accepted (413 above it).
    ///   - readTimeout: seconds a connection may stay silent while its request is read.
    ///   - maxConnections: connections served at once; more are answered 503.
    ///   - keepsConnectionsOpen: answer HTTP/1.1 clients with `keep-alive` and read their next request.
    ///   - handler: answers each request.
    public init(
        maxHeaderBytes: Int = 64 * 1024,
        maxBodyBytes: Int = 16 * 1024 * 1024,
        readTimeout: Double = 10,
        maxConnections: Int = 256,
        keepsConnectionsOpen: Bool = false,
        handler: @escaping Handler
    ) {
        self.keepsConnectionsOpen = keepsConnectionsOpen
        self.handler = handler
        self.limits = HTTPRequestDecoder.Limits(maxHeadBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes)
        self.readTimeout = readTimeout
        self.maxConnections = maxConnections
        self.executor = HandlerExecutor(label: "loopback-http-handlers")
    }

    deinit {
        // Never wait here: a deinit can run anywhere, an async context included.
        state.beginStop()
    }

    /// The bound port while running, else nil.
    public var port: UInt16? {
        state.port
    }

    /// `http://127.0.0.1:PORT` while running; port 0 when stopped.
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port ?? 0)")!
    }

    /// Starts listening on 127.0.0.1 and returns the bound port.
    /// - Parameter port: the port to bind; 0 picks a free ephemeral port.
    /// - Throws: `LoopbackHTTPError` when the server is already running or the port cannot be bound.
    @discardableResult
    public func start(port: UInt16 = 0) throws -> UInt16 {
        if state.isRunning { throw LoopbackHTTPError("the server is already running on port \(state.port ?? 0)") }
        let listener: (fd: Int32, port: UInt16)
        do {
            listener = try ServerSocket.listenOnLoopback(port: port, backlog: 128)
        } catch {
            throw LoopbackHTTPError("could not listen on 127.0.0.1:\(port): \(error)")
        }
        guard state.begin(fd: listener.fd, port: listener.port) else {
            ServerSocket.close(listener.fd)
            throw LoopbackHTTPError("the server is already running on port \(state.port ?? 0)")
        }
        let thread = Thread { [state, handler, limits, readTimeout, maxConnections, keepsConnectionsOpen, executor] in
            Self.acceptLoop(
                fd: listener.fd, state: state, handler: handler, limits: limits, readTimeout: readTimeout,
                maxConnections: maxConnections, keepsConnectionsOpen: keepsConnectionsOpen, executor: executor
            )
            ServerSocket.close(listener.fd)
            state.finishStop()
        }
        thread.name = "loopback-http-accept-\(listener.port)"
        thread.start()
        return listener.port
    }

    /// Stops accepting, closes the listening socket and interrupts open connections.
    ///
    /// Returns once the port is closed. Safe to call more than once.
    public func stop() async {
        state.beginStop()
        await state.waitUntilStopped()
    }

    /// Serves until the calling task is cancelled or `stop()` is called, starting on an ephemeral
    /// port if not yet started.
    /// - Throws: `LoopbackHTTPError` when the server cannot start.
    public func run() async throws {
        if !state.isRunning { try start() }
        let state = self.state
        await withTaskCancellationHandler {
            await state.waitUntilStopped()
        } onCancel: {
            state.beginStop()
        }
    }

    /// A server has nothing to re-read.
    public func reload() async {}

    /// Stops serving; `run()` then returns.
    public func shutdownGracefully() async {
        await stop()
    }

    private static func acceptLoop(
        fd: Int32, state: ServerState, handler: @escaping Handler,
        limits: HTTPRequestDecoder.Limits, readTimeout: Double, maxConnections: Int,
        keepsConnectionsOpen: Bool, executor: HandlerExecutor
    ) {
        while !state.isStopping {
            switch ServerSocket.accept(on: fd, timeoutMilliseconds: 250) {
            case .timedOut:
                continue
            case .closed:
                return
            case .connection(let client):
                guard state.register(client, limit: maxConnections) else {
                    _ = ServerSocket.sendAll(client, HTTPResponse.text(503, "too many connections\n").serialized(includeBody: true))
                    ServerSocket.shutdownWrite(client)
                    ServerSocket.close(client)
                    continue
                }
                let connection = Connection(
                    fd: client, limits: limits, readTimeout: readTimeout, handler: handler,
                    state: state, executor: executor, keepsConnectionsOpen: keepsConnectionsOpen
                )
                let worker = Thread { connection.serve() }
                worker.name = "loopback-http-connection"
                worker.start()
            }
        }
    }
}
