import Foundation

/// One request the tenant served, as tests inspect it. Authorization and cookie values are
/// replaced by `[redacted]`; bodies are not kept (they carry device codes and refresh tokens),
/// except PATCH bodies, which `SimulatedTenant.patchBodies` keeps separately.
public struct RecordedRequest: Sendable, Equatable, Codable {
    public struct Header: Sendable, Equatable, Codable {
        public var name: String
        public var value: String
    }

    public var method: String
    /// The decoded path, without the query.
    public var path: String
    /// The raw query string as sent.
    public var rawQuery: String
    /// Decoded query parameters (last value wins).
    public var query: [String: String]
    public var headers: [Header]
    /// The status answered; 0 when the connection was dropped or raw bytes were sent.
    public var status: Int
    /// The simulator clock when the request arrived.
    public var time: Date

    /// The first value of the header named `name`, case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
