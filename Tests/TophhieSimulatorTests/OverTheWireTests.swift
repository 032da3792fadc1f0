import Foundation
import LoopbackHTTP
import TophhieSimulator
import TophhieSystem
import Testing

/// The tenant served over real loopback sockets: the few tests that are about serving itself.
/// Everything else reaches the tenant in-process.
@Suite(.serialized, .timeLimit(.minutes(20))) struct OverTheWireTests {
    @Test func runServesUntilCancelledAndStartTwiceFails() async throws {
        let tenant = SimulatedTenant(scenario: Fixture.scenario(), clock: .manual(at: Fixture.start))
        let endpoints = try await tenant.start()
        await #expect(throws: LoopbackHTTPError("the simulated tenant is already serving on port \(endpoints.port)")) { try await tenant.start() }
        let task = Task { try await tenant.run() }
        let harness = Harness.overTheWire(tenant, endpoints: endpoints)
        let status = try await harness.send("GET", endpoints.controlURL.appendingPathComponent("status"))
        #expect(status.json?["tenantId"]?.stringValue == Fixture.tenantID)
        task.cancel()
        try await task.value
        #expect(await tenant.endpoints == nil)
        await #expect(throws: HTTPTransportError(.cannotConnect, "cannot connect to http://127.0.0.1:\(endpoints.port)")) {
            _ = try await harness.send("GET", endpoints.controlURL.appendingPathComponent("status"))
        }
    }
}
