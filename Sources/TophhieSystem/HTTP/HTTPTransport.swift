import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response as the clients need it: status, headers with lower-cased names, body.
public struct HTTPReply: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Sends one HTTP request and waits at most `deadline` seconds for the whole reply.
public protocol HTTPTransport: Sendable {
    /// - Throws: `HTTPTransportError` on a connection failure or when the deadline passes;
    ///   `CancellationError` when the task is cancelled.
    func send(_ request: URLRequest, deadline: Double) async throws -> HTTPReply

    /// True when waiting for the first reply on a new connection costs CPU for as long as the
    /// server takes; a caller about to send a slow request then opens the connection with a
    /// quick one first.
    var waitsBusilyOnNewConnections: Bool { get }
}

extension HTTPTransport {
    public var waitsBusilyOnNewConnections: Bool { false }
}

/// Why no HTTP reply came back: the kind for decisions, the message (naming the origin only,
/// never the query, which may carry the user's id) for people.
public struct HTTPTransportError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        case cannotConnect, hostNotFound, timedOut, connectionLost, cancelled, tlsFailure, badResponse, other
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

extension HTTPTransportError {
    /// `scheme://host[:port]` of `url`: what errors may name.
    public static func origin(_ url: URL?) -> String {
        guard let url, let host = url.host else { return "the server" }
        return (url.scheme ?? "https") + "://" + host + (url.port.map { ":\($0)" } ?? "")
    }

    /// "N s" or "N.N s".
    public static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    /// The deadline passed before the whole reply arrived.
    public static func deadline(_ url: URL?, _ seconds: Double) -> HTTPTransportError {
        HTTPTransportError(.timedOut, "no complete reply from \(origin(url)) within \(Self.seconds(seconds))")
    }

    /// The connection closed before a whole reply.
    public static func connectionLost(_ url: URL?) -> HTTPTransportError {
        HTTPTransportError(.connectionLost, "the connection to \(origin(url)) was lost")
    }
}
