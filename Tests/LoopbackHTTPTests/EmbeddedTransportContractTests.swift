import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackHTTP
import Testing
import TophhieSystem

/// The embedded transport must fail as the real one does, or tests that use it prove nothing
/// about production: each fault is sent once over loopback through `URLSessionTransport` and once
/// in-process through `EmbeddedTransport`, and the two must give the same reply or error kind.
@Suite(.serialized, .timeLimit(.minutes(20))) struct EmbeddedTransportContractTests {
    enum Fault: String, CaseIterable, CustomTestStringConvertible {
        case ok, dropConnection, truncatedBody, garbage, delayPastDeadline, headRequest, redirect

        var testDescription: String { rawValue }

        var response: HTTPResponse {
            switch self {
            case .ok: return .json(200, data: Data(#"{"value":[]}"#.utf8), headers: [("Retry-After", "1.5")])
            case .dropConnection: return .dropConnection
            case .truncatedBody: return .raw(Data("HTTP/1.1 200 OK\r\nContent-Length: 4096\r\nConnection: close\r\n\r\n{\"value\":[".utf8))
            case .garbage: return .raw(Data("NOT HTTP AT ALL\r\n\r\n".utf8))
            case .delayPastDeadline: return HTTPResponse.text(200, "late").delayed(by: 3)
            case .headRequest: return .text(200, "body that HEAD must not see")
            case .redirect: return HTTPResponse(status: 302, headers: [("Location", "http://127.0.0.1:9/elsewhere")])
            }
        }
    }

    /// A reply or an error kind: what callers decide on.
    enum Outcome: Equatable {
        case reply(status: Int, body: Data, retryAfter: String?)
        case failed(HTTPTransportError.Kind)
    }

    /// - Parameter deadline: short only where the deadline is the point; elsewhere long, so a busy
    ///   machine cannot turn a wire reply into a timeout.
    static func outcome(_ transport: any HTTPTransport, _ url: URL, method: String, deadline: Double) async -> Outcome {
        var request = URLRequest(url: url)
        request.httpMethod = method
        do {
            let reply = try await transport.send(request, deadline: deadline)
            return .reply(status: reply.status, body: reply.body, retryAfter: reply.header("retry-after"))
        } catch let error as HTTPTransportError {
            return .failed(error.kind)
        } catch {
            return .failed(.other)
        }
    }

    @Test(arguments: Fault.allCases)
    func embeddedFailsAsTheWireDoes(fault: Fault) async throws {
        let handler: LoopbackHTTPServer.Handler = { _ in fault.response }
        let method = fault == .headRequest ? "HEAD" : "GET"
        let deadline: Double = fault == .delayPastDeadline ? 1 : 30
        let server = LoopbackHTTPServer(handler: handler)
        let port = try server.start()
        let wire = await Self.outcome(URLSessionTransport(), URL(string: "http://127.0.0.1:\(port)/x")!, method: method, deadline: deadline)
        await server.stop()
        let embedded = await Self.outcome(EmbeddedTransport(clock: ManualClock(Date()), handler: handler), URL(string: "http://127.0.0.1:9/x")!, method: method, deadline: deadline)
        #expect(embedded == wire)
    }
}
