import Foundation
import LoopbackHTTP
import TophhieJSON

/// An error from the identity platform's endpoints, in Entra's body shape:
/// `{error, error_description: "AADSTS70016: …", error_codes: [70016], timestamp, trace_id, correlation_id, error_uri}`.
struct IdentityError: Error, Sendable, Equatable {
    var status: Int = 400
    var error: String
    var code: Int
    var description: String
    var suberror: String?

    func response(now: Date, host: String) -> HTTPResponse {
        let traceID = UUID().uuidString.lowercased()
        let correlationID = UUID().uuidString.lowercased()
        let timestamp = Self.timestamp(now)
        var body: [String: JSONValue] = [
            "error": .string(error),
            "error_description": .string("AADSTS\(code): \(description) Trace ID: \(traceID) Correlation ID: \(correlationID) Timestamp: \(timestamp)"),
            "error_codes": .array([.int(Int64(code))]),
            "timestamp": .string(timestamp),
            "trace_id": .string(traceID),
            "correlation_id": .string(correlationID),
            "error_uri": .string("\(host)/error?code=\(code)"),
        ]
        if let suberror { body["suberror"] = .string(suberror) }
        return .json(status, data: JSONValue.object(body).canonicalData())
    }

    /// Entra writes `2026-03-10 12:00:00Z`.
    static func timestamp(_ date: Date) -> String {
        GraphTimestamp.filterText(date).replacingOccurrences(of: "T", with: " ")
    }

    static func missingParameter(_ name: String) -> IdentityError {
        IdentityError(error: "invalid_request", code: 900144, description: "The request body must contain the following parameter: '\(name)'.")
    }

    static func unknownClient(_ clientID: String, tenant: String) -> IdentityError {
        IdentityError(error: "invalid_client", code: 700016, description: "Application with identifier '\(clientID)' was not found in the directory '\(tenant)'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You may have sent your authentication request to the wrong tenant.")
    }

    static func unknownTenant(_ tenant: String) -> IdentityError {
        IdentityError(error: "invalid_request", code: 90002, description: "Tenant '\(tenant)' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.")
    }

    static let authorizationPending = IdentityError(error: "authorization_pending", code: 70016, description: "OAuth 2.0 device flow error. Authorization is pending. Continue polling.")
    static let slowDown = IdentityError(error: "slow_down", code: 70016, description: "OAuth 2.0 device flow error. Polling too frequently; increase the interval by 5 seconds.")
    static let declined = IdentityError(error: "authorization_declined", code: 65004, description: "User declined to consent to access the app.")
    static let expiredDeviceCode = IdentityError(error: "expired_token", code: 70019, description: "Verification code expired.")
    static let badVerificationCode = IdentityError(error: "bad_verification_code", code: 70018, description: "Invalid verification code. The device_code was not recognized.")
    static let deviceCodeRedeemed = IdentityError(error: "invalid_grant", code: 70000, description: "The provided value for the input parameter 'device_code' is not valid. It has already been redeemed.")
    static let revokedRefreshToken = IdentityError(error: "invalid_grant", code: 50173, description: "The provided grant has expired due to it being revoked, a fresh auth token is needed. The user might have changed or reset their password.")
    static let reusedRefreshToken = IdentityError(error: "invalid_grant", code: 70000, description: "The provided value for the input parameter 'refresh_token' or 'assertion' is not valid. The refresh token was already used.")
    static let unknownRefreshToken = IdentityError(error: "invalid_grant", code: 9002313, description: "Invalid request. Request is malformed or invalid. The refresh token is not valid.")

    static func consentRequired(_ scopes: [String], clientID: String) -> IdentityError {
        IdentityError(error: "invalid_grant", code: 65001, description: "The user or administrator has not consented to use the application with ID '\(clientID)'. Send an interactive authorization request for this user and resource. Missing scopes: \(scopes.joined(separator: " ")).", suberror: "consent_required")
    }

    static func unsupportedGrant(_ grant: String) -> IdentityError {
        IdentityError(error: "unsupported_grant_type", code: 70003, description: "The app requested an unsupported grant type '\(grant)'.")
    }

    static func transient(status: Int) -> IdentityError {
        IdentityError(status: status, error: status == 500 ? "server_error" : "temporarily_unavailable", code: 90033, description: "A transient error has occurred. Please try again.")
    }
}
