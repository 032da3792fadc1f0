import Foundation

/// Serves one accepted connection on its own thread: read one request, answer it, close.
///
/// Blocking reads happen on a dedicated thread rather than in Swift concurrency's small pool, so a
/// slow client or a slow handler can never starve other connections.
struct Connection {
    let fd: Int32
    let limits: HTTPRequestDecoder.Limits
    let readTimeout: Double
    let handler: LoopbackHTTPServer.Handler
    let state: ServerState

    private enum Ending {
        /// The request was read whole; an orderly close is enough.
        case orderly
        /// Bytes may still be in flight from the client: drain them so the close does not reset the reply.
        case drainThenClose
        /// Reset the connection.
        case abort
    }

    func serve() {
        PlatformSocket.setReceiveTimeout(fd, seconds: readTimeout)
        let ending = exchange()
        if ending == .drainThenClose {
            PlatformSocket.shutdownWrite(fd)
            drain()
        }
        // Unregister before closing: once closed, the descriptor number may be reused by another
        // connection, and `stop` must never shut that one down by mistake.
        state.unregister(fd)
        switch ending {
        case .orderly:
            PlatformSocket.shutdownWrite(fd)
            PlatformSocket.close(fd)
        case .drainThenClose:
            PlatformSocket.close(fd)
        case .abort:
            PlatformSocket.abort(fd)
        }
    }

    private func exchange() -> Ending {
        var decoder = HTTPRequestDecoder(limits: limits)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = PlatformSocket.receive(fd, into: &chunk)
            let action: HTTPRequestDecoder.Action
            if count > 0 {
                action = decoder.consume(chunk[..<count])
            } else if count == 0 {
                action = decoder.endOfStream()
            } else {
                // Read timeout or error: nobody is waiting for an answer worth sending.
                return .abort
            }
            switch action {
            case .needMoreBytes:
                continue
            case .sendContinue:
                guard PlatformSocket.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return .abort }
            case .reject(let status, let message):
                if status == 0 { return .orderly }
                _ = PlatformSocket.sendAll(fd, HTTPResponse.text(status, message + "\n").serialized(includeBody: true))
                return .drainThenClose
            case .complete(let request):
                let response = respond(to: request)
                return send(response, isHead: request.method == "HEAD")
            }
        }
    }

    /// Runs the async handler and waits for it on this (dedicated) thread.
    private func respond(to request: HTTPRequest) -> HTTPResponse {
        let slot = ResponseSlot()
        let handler = self.handler
        Task {
            slot.value = await handler(request)
            slot.ready.signal()
        }
        slot.ready.wait()
        return slot.value ?? .text(500, "handler produced no response")
    }

    private func send(_ response: HTTPResponse, isHead: Bool) -> Ending {
        if response.delay > 0 { pause(seconds: response.delay) }
        switch response.fault {
        case .dropConnection:
            return .abort
        case .rawBytes(let bytes):
            _ = PlatformSocket.sendAll(fd, Array(bytes))
            return .drainThenClose
        case nil:
            _ = PlatformSocket.sendAll(fd, response.serialized(includeBody: !isHead))
            return .orderly
        }
    }

    /// Sleeps in short slices so a stopping server does not keep this thread for the whole delay.
    private func pause(seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while !state.isStopping {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return }
            Thread.sleep(forTimeInterval: min(left, 0.05))
        }
    }

    /// Reads and discards what the client still sends, briefly, so closing does not reset the reply.
    private func drain() {
        PlatformSocket.setReceiveTimeout(fd, seconds: 0.2)
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var total = 0
        while total < limits.maxBodyBytes + limits.maxHeadBytes {
            let count = PlatformSocket.receive(fd, into: &chunk)
            if count <= 0 { return }
            total += count
        }
    }
}

/// Carries the handler's answer from its task back to the connection thread.
private final class ResponseSlot: @unchecked Sendable {
    // Written once by the task before `ready` is signalled; read only after waiting on it.
    var value: HTTPResponse?
    let ready = DispatchSemaphore(value: 0)
}
