import Foundation

/// Every token the tenant issued, whose it is and what it grants. Pure state: the clock is passed in.
struct TokenLedger: Sendable {
    struct AccessGrant: Sendable {
        var scopes: ScopeSet
        var expiresAt: Date
        /// The object id of the person the token was issued to.
        var userID: String
    }

    struct RefreshGrant: Sendable {
        var scopes: ScopeSet
        var issuedAt: Date
        var userID: String
        var used = false
        var revoked = false
    }

    /// What a bearer token check found.
    enum AccessCheck: Equatable {
        case valid(ScopeSet, userID: String)
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

    mutating func issue(scopes: ScopeSet, to userID: String, withRefreshToken: Bool, now: Date, lifetime: Int) -> Issued {
        let access = OpaqueToken.make(prefix: "sim-at.")
        accessTokens[access] = AccessGrant(scopes: scopes, expiresAt: now.addingTimeInterval(Double(lifetime)), userID: userID)
        var refresh: String?
        if withRefreshToken {
            let token = OpaqueToken.make(prefix: "sim-rt.", bytes: 48)
            refreshTokens[token] = RefreshGrant(scopes: scopes, issuedAt: now, userID: userID)
            refresh = token
        }
        return Issued(accessToken: access, refreshToken: refresh, scopes: scopes, expiresIn: lifetime)
    }

    func check(accessToken: String, now: Date) -> AccessCheck {
        guard let grant = accessTokens[accessToken] else { return .unknown }
        return now < grant.expiresAt ? .valid(grant.scopes, userID: grant.userID) : .expired
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

    /// Revokes every refresh token issued so far, or only those of `userID`; returns how many were still live.
    mutating func revokeRefreshTokens(of userID: String? = nil) -> Int {
        var count = 0
        for key in refreshTokens.keys where !refreshTokens[key]!.revoked && (userID == nil || refreshTokens[key]!.userID == userID) {
            refreshTokens[key]!.revoked = true
            count += 1
        }
        return count
    }
}
