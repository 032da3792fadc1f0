import Foundation

/// Every token the tenant issued and what it grants. Pure state: the clock is passed in.
struct TokenLedger: Sendable {
    struct AccessGrant: Sendable {
        var scopes: ScopeSet
        var expiresAt: Date
    }

    struct RefreshGrant: Sendable {
        var scopes: ScopeSet
        var issuedAt: Date
        var used = false
        var revoked = false
    }

    /// What a bearer token check found.
    enum AccessCheck: Equatable {
        case valid(ScopeSet)
        case unknown
        case expired
    }

    struct Issued: Sendable {
        var accessToken: String
        var refreshToken: String?
        var scopes: ScopeSet
        var expiresIn: Int
    }

    private(set) var accessTokens: [String: AccessGrant] = [:]
    private(set) var refreshTokens: [String: RefreshGrant] = [:]

    mutating func issue(scopes: ScopeSet, withRefreshToken: Bool, now: Date, lifetime: Int) -> Issued {
        let access = OpaqueToken.make(prefix: "sim-at.")
        accessTokens[access] = AccessGrant(scopes: scopes, expiresAt: now.addingTimeInterval(Double(lifetime)))
        var refresh: String?
        if withRefreshToken {
            let token = OpaqueToken.make(prefix: "sim-rt.", bytes: 48)
            refreshTokens[token] = RefreshGrant(scopes: scopes, issuedAt: now)
            refresh = token
        }
        return Issued(accessToken: access, refreshToken: refresh, scopes: scopes, expiresIn: lifetime)
    }

    func check(accessToken: String, now: Date) -> AccessCheck {
        guard let grant = accessTokens[accessToken] else { return .unknown }
        return now < grant.expiresAt ? .valid(grant.scopes) : .expired
    }

    /// Validates a refresh token for use and marks it used.
    /// - Parameter revokeIssuedBefore: tokens issued before this instant count as revoked once `now` passes it.
    mutating func redeem(refreshToken: String, now: Date, rejectReuse: Bool, revokeIssuedBefore: Date?) -> Result<RefreshGrant, IdentityError> {
        guard var grant = refreshTokens[refreshToken] else { return .failure(.unknownRefreshToken) }
        if let cutoff = revokeIssuedBefore, now >= cutoff, grant.issuedAt < cutoff {
            grant.revoked = true
            refreshTokens[refreshToken] = grant
        }
        if grant.revoked { return .failure(.revokedRefreshToken) }
        if grant.used && rejectReuse { return .failure(.reusedRefreshToken) }
        grant.used = true
        refreshTokens[refreshToken] = grant
        return .success(grant)
    }

    /// Revokes every refresh token issued so far; returns how many were still live.
    mutating func revokeAllRefreshTokens() -> Int {
        var count = 0
        for key in refreshTokens.keys where !refreshTokens[key]!.revoked {
            refreshTokens[key]!.revoked = true
            count += 1
        }
        return count
    }
}
