/// Why a delivery failed, and whether trying again can help.
///
/// Messages are plain words for an operator and never carry secrets or full webhook URLs.
public struct NotifierError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Whether the failure is worth retrying.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable { case transient, permanent, gone }
        private let base: Base

        /// The receiver may accept it later: network errors, timeouts, 408, 429, 5xx.
        public static let transient = Code(base: .transient)
        /// Sending the same alert again will fail the same way: other 4xx, 3xx, bad payloads.
        public static let permanent = Code(base: .permanent)
        /// The receiver asks never to be sent anything again (HTTP 410): the channel is disabled.
        public static let gone = Code(base: .gone)

        public var description: String {
            switch base {
            case .transient: return "transient"
            case .permanent: return "permanent"
            case .gone: return "gone"
            }
        }
    }

    public var code: Code
    /// What the receiver asked for (`Retry-After`), when it said.
    public var retryAfter: Duration?
    public var message: String

    /// A failure that may clear up; `retryAfter` is the receiver's own hint.
    public static func transient(_ message: String, retryAfter: Duration? = nil) -> NotifierError {
        NotifierError(code: .transient, retryAfter: retryAfter, message: message)
    }

    /// A failure that retrying will not fix.
    public static func permanent(_ message: String) -> NotifierError {
        NotifierError(code: .permanent, retryAfter: nil, message: message)
    }

    /// The receiver is gone for good: stop sending to it, keep the alerts.
    public static func gone(_ message: String) -> NotifierError {
        NotifierError(code: .gone, retryAfter: nil, message: message)
    }

    public var isTransient: Bool { code == .transient }

    public var description: String { message }

    /// Any error as a `NotifierError`; errors of unknown kinds count as transient.
    public static func wrapping(_ error: any Error) -> NotifierError {
        if let known = error as? NotifierError { return known }
        return .transient("unexpected error: \(type(of: error))")
    }
}
