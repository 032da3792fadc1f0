import Foundation

/// Which of a person's sign-ins a request reads.
///
/// Entra logs a sign-in the person made (a password, a passkey, an MFA prompt) apart from one a
/// client made for them with a token it already held (a refresh, a session cookie). A stolen
/// refresh token or a device-code phishing victim's token is used in the second stream only.
public enum SignInStream: String, Sendable, Codable, Hashable, CaseIterable {
    /// `signInEventTypes` `interactiveUser`: the sign-ins the person made.
    case interactive
    /// `signInEventTypes` `nonInteractiveUser`: sign-ins a client made with a token it held.
    case nonInteractive

    /// The `signInEventTypes` member Graph beta filters on.
    public var eventType: String {
        switch self {
        case .interactive: return "interactiveUser"
        case .nonInteractive: return "nonInteractiveUser"
        }
    }

    /// Words for notices, `status` and `history`.
    public var words: String {
        switch self {
        case .interactive: return "interactive"
        case .nonInteractive: return "non-interactive"
        }
    }
}

/// Which Graph version the sign-in log is read from.
///
/// v1.0 returns interactive sign-ins only and lacks the fields that show token theft and
/// device-code phishing (`signInEventTypes`, `originalTransferMethod`, `authenticationDetails`,
/// `authenticationRequirement`); beta has both streams and those fields.
public enum SignInLogAPI: String, Sendable, Codable, Hashable, CaseIterable {
    case beta
    case v1 = "v1.0"

    /// The streams this version can read.
    public var streams: [SignInStream] {
        switch self {
        case .beta: return [.interactive, .nonInteractive]
        case .v1: return [.interactive]
        }
    }
}
