import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackHTTP
import Testing
import TophhieSystem

@Suite("LoopbackHTTPServer over URLSession", .serialized, .timeLimit(.minutes(20)))
struct ServerTests {
    struct Echo: Codable {
        var method: String
        var path: String
        var target: String
        var query: [String: String]
        var header: String?
        var body: String
        var form: [String: String]
    }

    static let echo: LoopbackHTTPServer.Handler = { request in
        .json(200, Echo(
            method: request.method, path: request.path, target: request.target, query: request.query,
            header: request.header("x-test-header"), body: String(decoding: request.body, as: UTF8.self),
            form: request.formFields()
        ))
    }

    @Test func getWithQueryIsDecoded() async throws {
        try await withServer(Self.echo) { server, port in
            let url = URL(string: "http://127.0.0.1:\(port)/v1.0/a%20b/signIns?$top=5&$filter=userId%20eq%20'x'&q=a+b&empty=")!
            var request = URLRequest(url: url)
            request.setValue("Value-1", forHTTPHeaderField: "X-Test-Header")
            let (data, response) = try await makeSession().data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 200)
            #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/json; charset=utf-8")
            let echo = try JSONDecoder().decode(Echo.self, from: data)
            #expect(echo.method == "GET")
            #expect(echo.path == "/v1.0/a b/signIns")
            #expect(echo.target == "/v1.0/a%20b/signIns?$top=5&$filter=userId%20eq%20'x'&q=a+b&empty=")
            #expect(echo.query == ["$top": "5", "$filter": "userId eq 'x'", "q": "a b", "empty": ""])
            #expect(echo.header == "Value-1")
            #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(port)")
        }
    }

    @Test func postFormBodyIsRead() async throws {
        try await withServer(Self.echo) { _, port in
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/tenant/oauth2/v2.0/token")!)
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&scope=User.Read+offline_access&client_id=abc".utf8)
            let (data, response) = try await makeSession().data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let echo = try JSONDecoder().decode(Echo.self, from: data)
            #expect(echo.method == "POST")
            #expect(echo.form == [
                "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                "scope": "User.Read offline_access",
                "client_id": "abc",
            ])
        }
    }

    @Test func largeBodyArrivesWhole() async throws {
        // Two MiB makes libcurl send `Expect: 100-continue`, so this also covers the interim reply.
        let payload = Data((0..<(2 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try await withServer({ request in
            .text(200, "\(request.body.count) \(request.body == payload)")
        }) { _, port in
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/upload")!)
            request.httpMethod = "PUT"
            request.httpBody = payload
            let (data, _) = try await makeSession().data(for: request)
            #expect(String(decoding: data, as: UTF8.self) == "\(payload.count) true")
        }
    }

    @Test func patchNoContentHasNoBody() async throws {
        try await withServer({ _ in .empty(204) }) { _, port in
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1.0/me")!)
            request.httpMethod = "PATCH"
            request.httpBody = Data(#"{"city":"Leeds"}"#.utf8)
            let (data, response) = try await makeSession().data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 204)
            #expect(data.isEmpty)
        }
    }

    @Test func concurrentRequestsEachGetTheirOwnAnswer() async throws {
        try await withServer({ request in
            try? await Task.sleep(for: .milliseconds(20))
            return .text(200, request.query["n"] ?? "missing")
        }) { _, port in
            let session = makeSession()
            let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for n in 0..<24 {
                    group.addTask {
                        let (data, _) = try await session.data(from: URL(string: "http://127.0.0.1:\(port)/n?n=\(n)")!)
                        return (n, String(decoding: data, as: UTF8.self))
                    }
                }
                var collected: [Int: String] = [:]
                for try await (n, text) in group { collected[n] = text }
                return collected
            }
            #expect(answers.count == 24)
            for (n, text) in answers { #expect(text == String(n)) }
        }
    }

    @Test func slowHandlerDoesNotBlockAnother() async throws {
        // The slow request can only finish after the fast one was served; a server that handled one
        // request at a time would deadlock here and the slow request would time out.
        let gate = Gate()
        try await withServer({ request in
            if request.path == "/slow" {
                await gate.wait()
                return .text(200, "slow done")
            }
            await gate.open()
            return .text(200, "fast done")
        }) { _, port in
            let session = makeSession(timeout: 10)
            async let slow = session.data(from: URL(string: "http://127.0.0.1:\(port)/slow")!)
            // Give the slow request a head start so it is in its handler first in the usual case.
            try await Task.sleep(for: .milliseconds(100))
            let (fastData, _) = try await session.data(from: URL(string: "http://127.0.0.1:\(port)/fast")!)
            #expect(String(decoding: fastData, as: UTF8.self) == "fast done")
            let (slowData, _) = try await slow
            #expect(String(decoding: slowData, as: UTF8.self) == "slow done")
        }
    }

    @Test func responseHeadersAndStatusesPassThrough() async throws {
        try await withServer({ _ in
            .json(429, data: Data(#"{"error":{"code":"TooManyRequests"}}"#.utf8), headers: [("Retry-After", "1.5")])
        }) { _, port in
            let (data, response) = try await makeSession().data(from: URL(string: "http://127.0.0.1:\(port)/x")!)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 429)
            #expect(http.value(forHTTPHeaderField: "Retry-After") == "1.5")
            #expect(String(decoding: data, as: UTF8.self) == #"{"error":{"code":"TooManyRequests"}}"#)
        }
    }

    @Test func droppedConnectionIsAClientError() async throws {
        try await withServer({ _ in .dropConnection }) { _, port in
            await #expect(throws: HTTPTransportError(.connectionLost, "the connection to http://127.0.0.1:\(port) was lost")) {
                _ = try await URLSessionTransport().send(URLRequest(url: URL(string: "http://127.0.0.1:\(port)/drop")!), deadline: 30)
            }
        }
    }

    @Test func rawBytesFaultIsSentVerbatim() async throws {
        let bytes = Data("HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{\"a\":".utf8)
        try await withServer({ _ in .raw(bytes) }) { _, port in
            let reply = try #require(await rawExchange(port: port, bytes: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)))
            #expect(reply == Array(bytes))
        }
    }

    @Test func delayedResponseStillArrives() async throws {
        try await withServer({ _ in HTTPResponse.text(200, "late").delayed(by: 0.2) }) { _, port in
            let (data, _) = try await makeSession().data(from: URL(string: "http://127.0.0.1:\(port)/")!)
            #expect(String(decoding: data, as: UTF8.self) == "late")
        }
    }

    @Test func stopClosesThePortAndAllowsRestart() async throws {
        let server = LoopbackHTTPServer { _ in .text(200, "up") }
        let port = try server.start()
        #expect(server.port == port)
        #expect(await canConnect(port: port))
        #expect(throws: LoopbackHTTPError.self) { try server.start() }
        await server.stop()
        #expect(server.port == nil)
        #expect(await !canConnect(port: port))
        await server.stop()  // a second stop is harmless

        let again = try server.start()
        let (data, _) = try await makeSession().data(from: URL(string: "http://127.0.0.1:\(again)/")!)
        #expect(String(decoding: data, as: UTF8.self) == "up")
        await server.stop()
    }

    @Test func runServesUntilCancelled() async throws {
        let server = LoopbackHTTPServer { _ in .text(200, "running") }
        let port = try server.start()
        let task = Task { try await server.run() }
        let (data, _) = try await makeSession().data(from: URL(string: "http://127.0.0.1:\(port)/")!)
        #expect(String(decoding: data, as: UTF8.self) == "running")
        task.cancel()
        try await task.value
        #expect(server.port == nil)
        #expect(await !canConnect(port: port))
    }

    @Test func busyPortGivesAClearError() async throws {
        let first = LoopbackHTTPServer { _ in .empty(204) }
        let port = try first.start()
        let second = LoopbackHTTPServer { _ in .empty(204) }
        do {
            try second.start(port: port)
            Issue.record("binding a busy port succeeded")
        } catch let error as LoopbackHTTPError {
            #expect(error.message == "could not listen on 127.0.0.1:\(port): bind failed: Address already in use (errno 98)")
        }
        await first.stop()
    }
}
