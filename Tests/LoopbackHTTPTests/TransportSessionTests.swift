import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TophhieSystem

/// The transport makes its URLSession at the first request: making one has Foundation create
/// directories in the home directory, which a command that never goes online should not do.
@Suite(.timeLimit(.minutes(20))) struct TransportSessionTests {
    @Test func aTransportHasNoSessionUntilItsFirstRequest() async throws {
        let transport = URLSessionTransport()
        #expect(!transport.hasSession)
        // A refused connection still needs the session: it is made, and the error is the usual one.
        await #expect(throws: HTTPTransportError.self) {
            _ = try await transport.send(URLRequest(url: URL(string: "http://127.0.0.1:9/")!), deadline: 5)
        }
        #expect(transport.hasSession)
    }
}
