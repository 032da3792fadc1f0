import Foundation
import TophhieSystem

/// Serves one accepted connection: read a request, answer it, then close, or, when the server
/// keeps connections open and the client asked for it, read the next request on the same socket.
///
/// The blocking read happens on the connection's own thread, so a slow client never holds a
/// thread of Swift's cooperative pool. The handler then runs as a task on the server's
/// `HandlerExecutor`, which also writes the answer: nothing here waits for a task to finish.
struct Connection: Sendable {
    let fd: Int32
    let limits: HTTPRequestDecoder.Limits
    let readTimeout: Double
    let handler: LoopbackHTTPServer.Handler
    let state: ServerState
    let executor: HandlerExecutor
    /// Answer HTTP/1.1 clients with `Connection: keep-alive`, as Graph does.
    let keepsConnectionsOpen: Bool

    private enum Ending {
        /// The answer went out whole and the client wants the connection: read the next request.
        case keepOpen
        /// The request was read whole; an orderly close is enough.
        case orderly
        /// Bytes may still be in flight from the client: drain them so the close does not reset the reply.
        case drainThenClose
        /// Reset the connection.
        case abort
    }

    private enum ReadOutcome {
        case request(HTTPRequest, clientKeepsConnection: Bool, remainder: [UInt8])
        case finished(Ending)
    }

    /// Reads a request on the calling (dedicated) thread, then hands it to the handler.
    /// - Parameters:
    ///   - carried: bytes of the next request that arrived with the previous one.
    ///   - afterRequest: the connection already carried a request, so a silent one closes quietly.
    func serve(carried: [UInt8] = [], afterRequest: Bool = false) {
        ServerSocket.setReceiveTimeout(fd, seconds: readTimeout)
        switch read(carried: carried, afterRequest: afterRequest) {
        case .finished(let ending):
            finish(ending)
        case .request(let request, let clientKeepsConnection, let remainder):
            let connection = self
            Task(executorPreference: executor) {
                let response = await connection.handler(request)
                if response.delay > 0 { await connection.pause(seconds: response.delay) }
                let keepOpen = connection.keepsConnectionsOpen && clientKeepsConnection && !connection.state.isStopping
                let ending = connection.send(response, isHead: request.method == "HEAD", keepOpen: keepOpen)
                guard ending == .keepOpen else { return connection.finish(ending) }
                // The next read blocks, so it gets a thread of its own, never the handlers' executor.
                let worker = Thread { connection.serve(carried: remainder, afterRequest: true) }
                worker.name = "loopback-http-connection"
                worker.start()
            }
        }
    }

    private func read(carried: [UInt8], afterRequest: Bool) -> ReadOutcome {
        var decoder = HTTPRequestDecoder(limits: limits)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var pending: ArraySlice<UInt8>? = carried.isEmpty ? nil : carried[...]
        while true {
            let action: HTTPRequestDecoder.Action
            if let bytes = pending {
                pending = nil
                action = decoder.consume(bytes)
            } else {
                let count = ServerSocket.receive(fd, into: &chunk)
                if count > 0 {
                    action = decoder.consume(chunk[..<count])
                } else if count == 0 {
                    action = decoder.endOfStream()
                } else if afterRequest && decoder.isIdle {
                    // A kept connection nobody reused: close it as a server's idle timeout does.
                    return .finished(.orderly)
                } else {
                    // Read timeout or error: nobody is waiting for an answer worth sending.
                    return .finished(.abort)
                }
            }
            switch action {
            case .needMoreBytes:
                continue
            case .sendContinue:
                guard ServerSocket.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return .finished(.abort) }
            case .reject(let status, let message):
                if status == 0 { return .finished(.orderly) }
                _ = ServerSocket.sendAll(fd, HTTPResponse.text(status, message + "\n").serialized(includeBody: true))
                return .finished(.drainThenClose)
            case .complete(let request):
                return .request(request, clientKeepsConnection: decoder.clientKeepsConnection, remainder: decoder.remainder)
            }
        }
    }

    private func send(_ response: HTTPResponse, isHead: Bool, keepOpen: Bool) -> Ending {
        switch response.fault {
        case .dropConnection:
            return .abort
        case .rawBytes(let bytes):
            _ = ServerSocket.sendAll(fd, Array(bytes))
            return .drainThenClose
        case nil:
            let sent = ServerSocket.sendAll(fd, response.serialized(includeBody: !isHead, keepOpen: keepOpen))
            return sent && keepOpen ? .keepOpen : .orderly
        }
    }

    private func finish(_ ending: Ending) {
        if ending == .drainThenClose {
            ServerSocket.shutdownWrite(fd)
            drain()
        }
        // Unregister before closing: once closed, the descriptor number may be reused by another
        // connection, and `stop` must never shut that one down by mistake.
        state.unregister(fd)
        switch ending {
        case .orderly, .keepOpen:
            ServerSocket.shutdownWrite(fd)
            ServerSocket.close(fd)
        case .drainThenClose:
            ServerSocket.close(fd)
        case .abort:
            ServerSocket.abort(fd)
        }
    }

    /// Waits in short slices so a stopping server does not keep the connection for the whole delay.
    private func pause(seconds: Double) async {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while !state.isStopping {
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero { return }
            try? await Task.sleep(for: min(left, .milliseconds(50)))
        }
    }

    /// Reads and discards what the client still sends, briefly, so closing does not reset the reply.
    private func drain() {
        ServerSocket.setReceiveTimeout(fd, seconds: 0.2)
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var total = 0
        while total < limits.maxBodyBytes + limits.maxHeadBytes {
            let count = ServerSocket.receive(fd, into: &chunk)
            if count <= 0 { return }
            total += count
        }
    }
}
