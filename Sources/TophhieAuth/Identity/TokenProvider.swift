import Foundation

/// Hands out access tokens: the cached one while it is valid, otherwise a refreshed one.
///
/// Every refresh's rotated refresh token replaces the old one in the cache, atomically, before
/// the new access token is used. An actor, so two callers never refresh at once.
actor TokenProvider {
    private let configuration: TophhieConfiguration
    private let identity: IdentityClient
    private let cache: TokenCache
    private let clock: any TophhieClock
    private var session: CachedSession?
    private var loaded = false
    /// The cache file's modification time when it was last read or written: a `login` in another
    /// process replaces the file, and a long-running agent must notice.
    private var loadedVersion: Date?
    /// The refresh in progress; later callers await it rather than redeem the same token again.
    private var refreshing: Task<String, any Error>?

    init(configuration: TophhieConfiguration, identity: IdentityClient, cache: TokenCache, clock: any TophhieClock) {
        self.configuration = configuration
        self.identity = identity
        self.cache = cache
        self.clock = clock
    }

    /// The cached session, read again from disk whenever the file changed.
    func currentSession() throws -> CachedSession? {
        let version = cache.modificationDate
        if !loaded || version != loadedVersion {
            session = try cache.load()
            loaded = true
            loadedVersion = version
        }
        return session
    }

    /// Stores a new sign-in; the fsync runs on the blocking-work pool.
    func store(_ newSession: CachedSession) async throws {
        let cache = self.cache
        try await BlockingWork.shared.run { try cache.save(newSession) }
        session = newSession
        loaded = true
        loadedVersion = cache.modificationDate
    }

    /// Forgets the session and deletes the cache file.
    func clear() throws {
        try cache.remove()
        session = nil
        loaded = true
    }

    /// Records the user's object id once `/me` has told it.
    func remember(objectID: String, userPrincipalName: String) async throws {
        guard var current = try currentSession() else { return }
        guard current.objectID != objectID || current.userPrincipalName != userPrincipalName else { return }
        current.objectID = objectID
        current.userPrincipalName = userPrincipalName
        try await store(current)
    }

    /// An access token that covers `scope`.
    /// - Parameter forceRefresh: ignore the cached access token (Graph answered 401).
    /// - Throws: `.interactionRequired` when nobody is signed in, the scope was never granted, or
    ///   the refresh token is refused.
    func accessToken(covering scope: String, forceRefresh: Bool = false) async throws -> String {
        guard let current = try currentSession() else {
            throw TophhieAuthError.interactionRequired(reason: "nobody is signed in")
        }
        guard TophhieScopes.covers(current.grantedScopes, scope) else {
            let set = TophhieScopes.sets.first { $0.scopes.contains(scope) }?.name ?? scope
            throw TophhieAuthError.interactionRequired(reason: "the permission \(scope) was not granted at sign-in; run 'tophhie-watch login --scopes \(set)' (it may need admin consent)")
        }
        let now = clock.now()
        if !forceRefresh, let token = current.accessToken, let expiry = current.accessTokenExpiresAt,
           expiry.timeIntervalSince(now) > configuration.tokenExpirySkew {
            return token
        }
        // One refresh at a time: callers that arrive while it runs wait for its result instead of
        // redeeming the same refresh token again.
        if let running = refreshing { return try await running.value }
        let task = Task { try await self.refresh(current) }
        refreshing = task
        defer { refreshing = nil }
        return try await task.value
    }

    /// Redeems the refresh token and stores the rotated one.
    private func refresh(_ session: CachedSession) async throws -> String {
        let redeemed = session.refreshToken
        let grant = try await identity.refresh(redeemed, scopes: session.requestedScopes, granted: session.grantedScopes)
        // The actor may have served others during the await (a `login` in another process, a
        // remembered object id): start again from what is on disk and change only the tokens.
        var current = try currentSession() ?? session
        guard current.refreshToken == redeemed else {
            throw TophhieAuthError.interactionRequired(reason: "the token cache was replaced by another sign-in while refreshing; run the command again")
        }
        current.accessToken = grant.access_token
        current.accessTokenExpiresAt = clock.now().addingTimeInterval(grant.expires_in)
        if let rotated = grant.refresh_token { current.refreshToken = rotated }
        if let scope = grant.scope { current.grantedScopes = scope.split(separator: " ").map(String.init) }
        current.refreshedAt = clock.now()
        try await store(current)
        return grant.access_token
    }
}
