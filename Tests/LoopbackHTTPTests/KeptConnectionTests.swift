import Foundation
import LoopbackHTTP
import Testing
import TophhieSystem

/// One client's talk over one TCP connection, held on a thread of its own (blocking reads must
/// stay off Swift's pool, where the server's handlers run).
private struct Conversation: Sendable {
    struct Reply: Sendable, Equatable {
        var statusLine: String
        var connection: String?
        var body: String
    }

    var replies: [Reply] = []
    /// What the read after the last expected reply returned: 0 when the server closed in order,
    /// -1 on a reset or when nothing came within the read timeout.
    var ending: Int = 1

    /// Sends each step's bytes, then reads that many whole replies; then reads once more for the end.
    static func hold(port: UInt16, steps: [(bytes: String, replies: Int)], readTimeout: Double = 5) async -> Conversation? {
        await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: talk(port: port, steps: steps, readTimeout: readTimeout))
            }.start()
        }
    }

    private static func talk(port: UInt16, steps: [(bytes: String, replies: Int)], readTimeout: Double) -> Conversation? {
        guard let fd = ServerSocket.connectLoopback(port: port) else { return nil }
        defer { ServerSocket.close(fd) }
        ServerSocket.setReceiveTimeout(fd, seconds: readTimeout)
        var conversation = Conversation()
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        for step in steps {
            guard ServerSocket.sendAll(fd, Array(step.bytes.utf8)) else { return conversation }
            for _ in 0..<step.replies {
                // Read until one whole reply (head and Content-Length body) is buffered.
                while true {
                    if let (reply, used) = parse(pending) {
                        conversation.replies.append(reply)
                        pending.removeFirst(used)
                        break
                    }
                    let count = ServerSocket.receive(fd, into: &chunk)
                    if count <= 0 {
                        conversation.ending = count
                        return conversation
                    }
                    pending.append(contentsOf: chunk[..<count])
                }
            }
        }
        conversation.ending = pending.isEmpty ? ServerSocket.receive(fd, into: &chunk) : 1
        return conversation
    }

    private static func parse(_ bytes: [UInt8]) -> (Reply, Int)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let headEnd = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else { return nil }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        func header(_ name: String) -> String? {
            lines.dropFirst().first { $0.lowercased().hasPrefix(name.lowercased() + ":") }.map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
        let length = Int(header("Content-Length") ?? "0") ?? 0
        let bodyStart = headEnd + 4
        guard bytes.count >= bodyStart + length else { return nil }
        let body = String(decoding: bytes[bodyStart..<bodyStart + length], as: UTF8.self)
        return (Reply(statusLine: lines[0], connection: header("Connection"), body: body), bodyStart + length)
    }
}

@Suite("LoopbackHTTPServer keeps connections open when asked", .serialized, .timeLimit(.minutes(20)))
struct KeptConnectionTests {
    static let echoPath: LoopbackHTTPServer.Handler = { request in .text(200, request.path) }

    private func withKeptServer<T>(readTimeout: Double = 10, keepsConnectionsOpen: Bool = true, _ body: (LoopbackHTTPServer, UInt16) async throws -> T) async throws -> T {
        try await withServer(readTimeout: readTimeout, keepsConnectionsOpen: keepsConnectionsOpen, Self.echoPath, body)
    }

    @Test func requestsFollowOneAnotherOnOneConnectionUntilTheClientSaysClose() async throws {
        try await withKeptServer { _, port in
            let talk = try #require(await Conversation.hold(port: port, steps: [
                ("GET /a HTTP/1.1\r\nHost: x\r\n\r\n", 1),
                ("GET /b HTTP/1.1\r\nHost: x\r\n\r\n", 1),
                ("GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 1),
            ]))
            #expect(talk.replies.map(\.body) == ["/a", "/b", "/c"])
            #expect(talk.replies.map(\.connection) == ["keep-alive", "keep-alive", "close"])
            #expect(talk.ending == 0, "closed in order after the reply to 'Connection: close'")
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withKeptServer { _, port in
            let both = "GET /first HTTP/1.1\r\nHost: x\r\n\r\nPOST /second HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi"
            let talk = try #require(await Conversation.hold(port: port, steps: [(both, 2)]))
            #expect(talk.replies.map(\.body) == ["/first", "/second"])
            #expect(talk.ending == 0)
        }
    }

    @Test func anHTTP10ClientIsClosedUnlessItAsksForKeepAlive() async throws {
        try await withKeptServer { _, port in
            let plain = try #require(await Conversation.hold(port: port, steps: [("GET /old HTTP/1.0\r\n\r\n", 1)]))
            #expect(plain.replies.map(\.connection) == ["close"])
            #expect(plain.ending == 0)
            let asking = try #require(await Conversation.hold(port: port, steps: [
                ("GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 1),
                ("GET /again HTTP/1.0\r\n\r\n", 1),
            ]))
            #expect(asking.replies.map(\.body) == ["/old", "/again"])
            #expect(asking.replies.map(\.connection) == ["keep-alive", "close"])
        }
    }

    @Test func byDefaultEveryConnectionCarriesOneRequest() async throws {
        try await withKeptServer(keepsConnectionsOpen: false) { _, port in
            let talk = try #require(await Conversation.hold(port: port, steps: [("GET /only HTTP/1.1\r\nHost: x\r\n\r\n", 1)]))
            #expect(talk.replies == [.init(statusLine: "HTTP/1.1 200 OK", connection: "close", body: "/only")])
            #expect(talk.ending == 0)
        }
    }

    @Test func aKeptConnectionLeftSilentIsClosedInOrderNotReset() async throws {
        try await withKeptServer(readTimeout: 0.3) { _, port in
            let talk = try #require(await Conversation.hold(port: port, steps: [("GET /a HTTP/1.1\r\nHost: x\r\n\r\n", 1)]))
            #expect(talk.replies.map(\.connection) == ["keep-alive"])
            #expect(talk.ending == 0, "an idle close is a FIN; a reset would lose a request the client had just sent")
        }
    }

    @Test func stoppingTheServerClosesAKeptConnection() async throws {
        // The server's own idle timeout is longer than the client's patience: only stop can close it.
        let server = LoopbackHTTPServer(readTimeout: 30, keepsConnectionsOpen: true, handler: Self.echoPath)
        let port = try server.start()
        async let talk = Conversation.hold(port: port, steps: [("GET /a HTTP/1.1\r\nHost: x\r\n\r\n", 1)], readTimeout: 20)
        // Once the reply is out the connection waits for a next request; stop must end that wait.
        try await Task.sleep(for: .milliseconds(300))
        await server.stop()
        let ended = try #require(await talk)
        #expect(ended.replies.map(\.body) == ["/a"])
        #expect(ended.ending == 0)
    }
}
