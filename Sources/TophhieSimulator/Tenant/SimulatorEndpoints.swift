import Foundation

/// Where a started simulated tenant answers, for configuring a client against it.
public struct SimulatorEndpoints: Sendable, Equatable {
    /// `http://127.0.0.1:PORT`
    public var authorityHost: URL
    /// `http://127.0.0.1:PORT/{tenantId}`, the authority to configure the identity client with.
    public var authority: URL
    /// `http://127.0.0.1:PORT/v1.0`
    public var graphBaseURL: URL
    /// `http://127.0.0.1:PORT/_sim`, the control endpoints.
    public var controlURL: URL
    /// `http://127.0.0.1:PORT/devicelogin`, where a person approves a device code.
    public var verificationURL: URL
    public var tenantID: String
    public var clientID: String
    public var port: UInt16

    init(port: UInt16, tenantID: String, clientID: String) {
        let host = URL(string: "http://127.0.0.1:\(port)")!
        self.authorityHost = host
        self.authority = host.appendingPathComponent(tenantID)
        self.graphBaseURL = host.appendingPathComponent("v1.0")
        self.controlURL = host.appendingPathComponent("_sim")
        self.verificationURL = host.appendingPathComponent("devicelogin")
        self.tenantID = tenantID
        self.clientID = clientID
        self.port = port
    }
}
