import Foundation

/// Why Graph refused access, in the terms a person can act on.
public enum GraphAccessGate: String, Sendable, Codable, Hashable {
    /// The tenant has no Entra ID P1/P2 licence, which the sign-in log API requires.
    case licence
    /// The signed-in user has no reporting role and the request was not limited to their own sign-ins.
    case role
    /// The app lacks a delegated permission, or admin consent for it was never granted.
    case consent
    /// A member account edited fields outside its self-service set without `Directory.AccessAsUser.All`.
    case directoryAccess
    /// The app registration lacks the Graph permission itself (not only its consent):
    /// `Authentication_MSGraphPermissionMissing`, `Authentication_ApplicationHasNoDirectoryReadAccess`.
    case permissionMissing

    /// The Graph error code that names each gate, mapped for a request of the given kind.
    public static func from(graphCode: String?, status: Int, isProfileUpdate: Bool = false) -> GraphAccessGate? {
        guard status == 403, let graphCode else { return nil }
        switch graphCode {
        case "Authentication_RequestFromNonPremiumTenantOrB2CTenant": return .licence
        case "Authentication_RequestFromUnsupportedUserRole": return .role
        case "Authorization_RequestDenied": return isProfileUpdate ? .directoryAccess : .consent
        case "Authentication_MSGraphPermissionMissing", "Authentication_ApplicationHasNoDirectoryReadAccess": return .permissionMissing
        default: return nil
        }
    }

    /// The cause and the fix, in plain words.
    public var explanation: String {
        switch self {
        case .licence:
            return "the tenant has no Microsoft Entra ID P1 or P2 licence, which reading sign-in logs through Graph requires (Graph said Authentication_RequestFromNonPremiumTenantOrB2CTenant); a tenant administrator must add the licence, and data can take about 24 hours to appear after an upgrade"
        case .role:
            return "Graph treated the request as a tenant-wide query and the account has no reporting role (Graph said Authentication_RequestFromUnsupportedUserRole); the self-filter on your own user id was rejected, so ask an administrator for the Reports Reader or Security Reader role"
        case .consent:
            return "the app has not been granted the permission this call needs (Graph said Authorization_RequestDenied); an administrator must grant admin consent for AuditLog.Read.All (sign-in history) or User.ReadWrite (profile edits) on the app registration, then run 'tophhie-watch login' again"
        case .permissionMissing:
            return "the app registration does not list the Graph permission this call needs (Graph said Authentication_MSGraphPermissionMissing or Authentication_ApplicationHasNoDirectoryReadAccess); an administrator must add the delegated permissions AuditLog.Read.All and Directory.Read.All (Microsoft documents both for reading sign-ins) to the app registration and grant admin consent, then run 'tophhie-watch login' again"
        case .directoryAccess:
            return "member and admin accounts can only change these profile fields with the Directory.AccessAsUser.All permission, which needs admin consent on the app registration (Graph said Authorization_RequestDenied); consumer accounts in an External ID tenant do not need it"
        }
    }
}

/// Errors from sign-in, the token cache and Graph.
///
/// Messages never contain tokens, codes or secrets.
public enum TophhieAuthError: Error, Sendable, Equatable {
    /// No silent token can be had: nobody signed in, the refresh token was revoked or expired,
    /// or a scope was never consented. Run the device-code sign-in again.
    case interactionRequired(reason: String)
    /// The device-code sign-in ended without a token.
    case signIn(SignInFailure)
    /// `GET /me` failed with this HTTP status and Graph error code; `ids` are for Microsoft support.
    case profileFetch(status: Int, graphCode: String?, ids: GraphRequestIDs? = nil)
    /// `PATCH /me` failed with this HTTP status and Graph error code.
    case profileUpdate(status: Int, graphCode: String?, ids: GraphRequestIDs? = nil)
    /// `GET /auditLogs/signIns` failed with this HTTP status and Graph error code.
    case signInHistory(status: Int, graphCode: String?, ids: GraphRequestIDs? = nil)
    /// `POST /me/revokeSignInSessions` failed with this HTTP status and Graph error code.
    case sessionRevocation(status: Int, graphCode: String?, ids: GraphRequestIDs? = nil)
    /// The identity platform answered with an error that is not about interaction.
    case identity(status: Int, error: String, aadsts: [Int])
    /// `preferredLanguage` is not a BCP-47 language tag.
    case invalidLanguageTag(String)
    /// The network failed or the overall deadline passed; the message says which.
    case network(String)
    /// A response could not be read.
    case malformedResponse(String)
    /// The configuration cannot work (bad URL, empty tenant).
    case configuration(String)
    /// The token cache could not be read or written.
    case tokenCache(String)

    /// Which access gate a 403 names, if any.
    /// Whether the person must sign in again: no silent token can be had, or Graph refused the
    /// token again after the one refresh every call makes on a 401 (the identity platform
    /// issues tokens Graph will not take: the sessions were revoked, or the account changed).
    public var needsSignIn: Bool {
        switch self {
        case .interactionRequired, .signIn: return true
        case .profileFetch(let status, _, _), .profileUpdate(let status, _, _), .signInHistory(let status, _, _), .sessionRevocation(let status, _, _): return status == 401
        default: return false
        }
    }

    public var accessGate: GraphAccessGate? {
        switch self {
        case .profileFetch(let status, let code, _), .signInHistory(let status, let code, _), .sessionRevocation(let status, let code, _):
            return GraphAccessGate.from(graphCode: code, status: status)
        case .profileUpdate(let status, let code, _):
            return GraphAccessGate.from(graphCode: code, status: status, isProfileUpdate: true)
        default:
            return nil
        }
    }
}

/// How a device-code sign-in ended without a token.
public enum SignInFailure: String, Sendable, Equatable {
    /// The user declined on the sign-in page (`authorization_declined` / `access_denied`).
    case declined
    /// The code's `expires_in` passed before the user finished (`expired_token`).
    case expired
    /// The identity platform did not recognise the device code (`bad_verification_code`).
    case badVerificationCode
}

extension TophhieAuthError: LocalizedError {
    /// What `respond --revoke-sessions` lacks when revoking is refused, and how to get it.
    public static let revocationRefused = "revoking needs the delegated permission User.RevokeSessions.All; an administrator grants admin consent for it on the app registration, then run `tophhie-watch login --scopes respond`"

    public var errorDescription: String? {
        switch self {
        case .interactionRequired(let reason):
            // One instruction: a reason that already says which login to run is not followed by another.
            return reason.contains("run 'tophhie-watch login") ? "sign-in needed: \(reason)" : "sign-in needed: \(reason); run 'tophhie-watch login'"
        case .signIn(.declined):
            return "sign-in was declined on the sign-in page; run 'tophhie-watch login' to try again"
        case .signIn(.expired):
            return "the sign-in code expired before the sign-in was finished; run 'tophhie-watch login' again and enter the code within its time"
        case .signIn(.badVerificationCode):
            return "the identity platform did not recognise the device code; run 'tophhie-watch login' again"
        case .profileFetch(let status, let code, let ids):
            return Self.graphMessage("reading your profile (GET /me)", status, code, ids, accessGate)
        case .profileUpdate(let status, let code, let ids):
            return Self.graphMessage("updating your profile (PATCH /me)", status, code, ids, accessGate)
        case .signInHistory(let status, let code, let ids):
            return Self.graphMessage("reading your sign-in history (GET /auditLogs/signIns)", status, code, ids, accessGate)
        case .sessionRevocation(let status, let code, let ids):
            // A refusal has one cause here, the revoke permission: the read permissions the
            // general 403 text names are not what this call lacks.
            guard status != 403 else { return Self.revocationRefused }
            return Self.graphMessage("revoking your sessions (POST /me/revokeSignInSessions)", status, code, ids, accessGate)
        case .identity(let status, let error, let codes):
            let aadsts = codes.isEmpty ? "" : " (AADSTS\(codes.map(String.init).joined(separator: ", AADSTS")))"
            return "the identity platform refused the request: HTTP \(status) \(error)\(aadsts)" + Self.identityHint(error, codes)
        case .invalidLanguageTag(let tag):
            return "'\(tag)' is not a BCP-47 language tag such as en-GB or fr"
        case .network(let message):
            return "network: \(message)"
        case .malformedResponse(let message):
            return "unreadable response: \(message)"
        case .configuration(let message):
            return "configuration: \(message)"
        case .tokenCache(let message):
            return "token cache: \(message)"
        }
    }

    private static func graphMessage(_ action: String, _ status: Int, _ code: String?, _ ids: GraphRequestIDs?, _ gate: GraphAccessGate?) -> String {
        let codeText = code.map { " \($0)" } ?? ""
        var text = "Graph failed \(action): HTTP \(status)\(codeText)\(ids?.suffix ?? "")"
        if let gate { text += " — \(gate.explanation)" }
        else if status == 401 { text += " — the access token was not accepted; run 'tophhie-watch login'" }
        else if status == 429 || status >= 500 { text += " — Graph is throttling or unavailable; it will be retried on the next poll" }
        return text
    }

    private static func identityHint(_ error: String, _ codes: [Int]) -> String {
        if codes.contains(7000218) { return " — enable 'Allow public client flows' on the app registration" }
        if codes.contains(700016) { return " — the client id is not registered in this tenant" }
        if codes.contains(90002) { return " — the tenant was not found; check the tenant id or domain" }
        return ""
    }
}
