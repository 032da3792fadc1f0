/// Why the server could not start.
public struct LoopbackHTTPError: Error, CustomStringConvertible, Equatable {
    /// A sentence saying what failed, e.g. "could not listen on 127.0.0.1:8080: Address already in use (errno 98)".
    public let message: String

    public var description: String { message }

    /// Creates an error with this message.
    public init(_ message: String) {
        self.message = message
    }
}
