import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackHTTP
import Testing

@Suite("LoopbackHTTPServer refuses bad input cleanly", .serialized, .timeLimit(.minutes(20)))
struct RobustnessTests {
    static let ok: LoopbackHTTPServer.Handler = { _ in .text(200, "ok") }

    @Test func oversizedHeaderGets431() async throws {
        try await withServer(Self.ok) { _, port in
            let big = String(repeating: "a", count: 70 * 1024)
            let request = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(big)\r\n\r\n"
            let reply = RawReply(try #require(await rawExchange(port: port, bytes: Array(request.utf8))))
            #expect(reply.statusLine == "HTTP/1.1 431 Request Header Fields Too Large")
            #expect(reply.body == "request head exceeds 65536 bytes\n")
        }
    }

    @Test func oversizedHeaderOverURLSessionGets431() async throws {
        try await withServer(Self.ok) { _, port in
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/")!)
            request.setValue(String(repeating: "b", count: 70 * 1024), forHTTPHeaderField: "X-Big")
            let (_, response) = try await makeSession().data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 431)
        }
    }

    @Test func oversizedBodyGets413() async throws {
        try await withServer(Self.ok) { _, port in
            let request = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\n\r\nabc"
            let reply = RawReply(try #require(await rawExchange(port: port, bytes: Array(request.utf8))))
            #expect(reply.statusLine == "HTTP/1.1 413 Content Too Large")
            #expect(reply.body == "request body exceeds 16777216 bytes\n")
        }
    }

    @Test func chunkedBodyGets411() async throws {
        try await withServer(Self.ok) { _, port in
            let request = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
            let reply = RawReply(try #require(await rawExchange(port: port, bytes: Array(request.utf8))))
            #expect(reply.statusLine == "HTTP/1.1 411 Length Required")
            #expect(reply.body == "chunked request bodies are not supported; send Content-Length\n")
        }
    }

    @Test(arguments: [
        ("\u{1}\u{2}\u{3}garbage\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("GET /\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("GET / HTTP/2.0\r\n\r\n", "HTTP/1.1 505 HTTP Version Not Supported"),
        ("GET / HTTP/1.1\r\nNo colon here\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("GET /?a=%zz HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", "HTTP/1.1 400 Bad Request"),
        ("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nshort", "HTTP/1.1 400 Bad Request"),
        ("GET / HTTP/1.1\r\nX: y\r\n folded\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("GET * HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request"),
    ])
    func malformedRequestsGetAClearStatus(request: String, statusLine: String) async throws {
        try await withServer(Self.ok) { _, port in
            let reply = RawReply(try #require(await rawExchange(port: port, bytes: Array(request.utf8))))
            #expect(reply.statusLine == statusLine)
        }
    }

    @Test func garbageBytesDoNotStopTheServer() async throws {
        try await withServer(Self.ok) { _, port in
            var generator = SplitMix(seed: 42)
            for round in 0..<20 {
                let length = 1 + Int(generator.next() % 5000)
                var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                if round.isMultiple(of: 2) { bytes += Array("\r\n\r\n".utf8) }
                _ = await rawExchange(port: port, bytes: bytes, readTimeout: 2)
            }
            // Nothing sent at all, then hang up.
            _ = await rawExchange(port: port, bytes: [])
            let (data, _) = try await makeSession().data(from: URL(string: "http://127.0.0.1:\(port)/still-up")!)
            #expect(String(decoding: data, as: UTF8.self) == "ok")
        }
    }

    @Test func responseHeaderValuesCannotInjectLines() async throws {
        try await withServer({ _ in .text(200, "x", headers: [("X-Evil", "a\r\nSet-Cookie: b")]) }) { _, port in
            let reply = try #require(await rawExchange(port: port, bytes: Array("GET / HTTP/1.1\r\n\r\n".utf8)))
            let text = String(decoding: reply, as: UTF8.self)
            #expect(text.contains("X-Evil: aSet-Cookie: b\r\n"))
            #expect(!text.contains("\r\nSet-Cookie"))
        }
    }
}

/// A small deterministic generator so the garbage is the same on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
