import Foundation

/// A Standard Webhooks signing secret (`whsec_` + base64 of 24–64 random bytes).
///
/// Its `description` never shows the key, so it can sit in settings that get printed.
public struct WebhookSecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The decoded key bytes.
    let keyBytes: [UInt8]

    /// Parses `whsec_<base64>`, or the bare base64 the reference libraries also take; padding
    /// may be missing, as they allow.
    /// - Throws: `WebhookSecretError` naming what is wrong, never echoing the secret.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("whsec_") else {
            // Bare base64 of a real key is accepted; anything else most likely lost its prefix.
            guard let bare = try? WebhookSecret(parsing: "whsec_" + trimmed) else { throw WebhookSecretError.missingPrefix }
            self = bare
            return
        }
        var encoded = String(trimmed.dropFirst("whsec_".count))
        guard !encoded.isEmpty else { throw WebhookSecretError.empty }
        // Foundation refuses unpadded base64; the Python library pads with "==", we pad exactly.
        encoded = encoded.trimmingCharacters(in: CharacterSet(charactersIn: "="))
        let remainder = encoded.utf8.count % 4
        guard remainder != 1 else { throw WebhookSecretError.notBase64 }
        if remainder != 0 { encoded += String(repeating: "=", count: 4 - remainder) }
        guard let data = Data(base64Encoded: encoded) else { throw WebhookSecretError.notBase64 }
        guard data.count >= 16 else { throw WebhookSecretError.tooShort(byteCount: data.count) }
        keyBytes = Array(data)
    }

    /// A secret from raw key bytes (tests and generated secrets).
    public init(keyBytes: [UInt8]) {
        self.keyBytes = keyBytes
    }

    /// A new secret of 32 random bytes from the system's cryptographic generator
    /// (`SystemRandomNumberGenerator`: getrandom on Linux), Standard Webhooks' recommended size.
    public static func generate() -> WebhookSecret {
        var generator = SystemRandomNumberGenerator()
        return WebhookSecret(keyBytes: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Secrets separated by spaces or newlines (`whsec_new whsec_old`): during a rotation every
    /// one of them signs each request, so the receiver can switch without downtime.
    /// - Throws: `WebhookSecretError` for the first that cannot be read, or `.empty` for none.
    public static func list(parsing text: String) throws -> [WebhookSecret] {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
        guard !parts.isEmpty else { throw WebhookSecretError.empty }
        return try parts.map { try WebhookSecret(parsing: String($0)) }
    }

    /// The `whsec_` text form, for writing a freshly generated secret to a file.
    public var serialized: String { "whsec_" + Data(keyBytes).base64EncodedString() }

    public var description: String { "whsec_<redacted>" }
    public var debugDescription: String { description }
    // `dump` and debuggers walk the mirror; an empty one keeps the key bytes out of them.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// Why a webhook secret could not be read. The messages never contain the secret.
public enum WebhookSecretError: Error, Equatable, CustomStringConvertible {
    case missingPrefix
    case empty
    case notBase64
    case tooShort(byteCount: Int)

    public var description: String {
        switch self {
        case .missingPrefix: return "the webhook secret must start with \"whsec_\""
        case .empty: return "the webhook secret has nothing after \"whsec_\""
        case .notBase64: return "the webhook secret after \"whsec_\" is not valid base64"
        case .tooShort(let n): return "the webhook secret decodes to \(n) bytes; use at least 16 (the specification asks for 24 to 64)"
        }
    }
}

/// The `v1` HMAC-SHA256 signature of Standard Webhooks.
public enum StandardWebhookSignature {
    /// The signed content: `"{id}.{timestamp}.{body}"` as bytes, exactly what is sent.
    public static func signedContent(id: String, timestamp: Int64, body: [UInt8]) -> [UInt8] {
        Array("\(id).\(timestamp).".utf8) + body
    }

    /// The header value `v1,<base64 HMAC-SHA256>`.
    /// - Parameters:
    ///   - id: the `webhook-id`; must not contain `.`.
    ///   - timestamp: the `webhook-timestamp`, Unix seconds of this attempt.
    ///   - body: the exact request body bytes.
    public static func sign(id: String, timestamp: Int64, body: [UInt8], secret: WebhookSecret) -> String {
        let mac = HMACSHA256.authenticationCode(key: secret.keyBytes, message: signedContent(id: id, timestamp: timestamp, body: body))
        return "v1," + Data(mac).base64EncodedString()
    }

    /// The header value signed by every secret: `v1,<sig1> v1,<sig2>`, as the specification's
    /// space-separated list allows for rotation.
    public static func sign(id: String, timestamp: Int64, body: [UInt8], secrets: [WebhookSecret]) -> String {
        secrets.map { sign(id: id, timestamp: timestamp, body: body, secret: $0) }.joined(separator: " ")
    }

    /// Whether any `v1,` entry of a space-separated `webhook-signature` header matches.
    ///
    /// Entries of other versions are skipped, as the reference libraries do.
    public static func verify(header: String, id: String, timestamp: Int64, body: [UInt8], secret: WebhookSecret) -> Bool {
        let expected = HMACSHA256.authenticationCode(key: secret.keyBytes, message: signedContent(id: id, timestamp: timestamp, body: body))
        var matched = false
        for entry in header.split(separator: " ") {
            let parts = entry.split(separator: ",", maxSplits: 1)
            guard parts.count == 2, parts[0] == "v1", let given = Data(base64Encoded: String(parts[1])) else { continue }
            if HMACSHA256.constantTimeEqual(Array(given), expected) { matched = true }
        }
        return matched
    }
}
