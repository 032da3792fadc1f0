import Foundation

/// The device authorization response (RFC 8628 §3.2 as the identity platform sends it).
struct DeviceAuthorization: Decodable, Sendable {
    let device_code: String
    let user_code: String
    let verification_uri: String
    let expires_in: Double
    let interval: Double?
    let message: String?
}

/// A successful token response.
struct TokenGrant: Decodable, Sendable {
    let token_type: String?
    let scope: String?
    let expires_in: Double
    let access_token: String
    let refresh_token: String?
}

/// An identity-platform error body: `error`, `error_codes` (AADSTS numbers), `suberror`.
/// `error_description` is read for nothing: Microsoft says never to react to it.
struct IdentityErrorBody: Decodable, Sendable {
    let error: String
    let error_codes: [Int]?
    let suberror: String?
}

/// What `login` shows the person: the message with the code and where to enter it.
public struct DeviceCodePrompt: Sendable, Equatable {
    /// The identity platform's own sentence, with the URL and the code.
    public let message: String
    /// The short code the person types; not a secret (unlike the device code, never shown).
    public let userCode: String
    public let verificationURI: String
    public let expiresIn: Double
}
