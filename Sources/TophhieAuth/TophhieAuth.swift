import Foundation
import TophhieJSON
import TophhieSystem
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The framework's entry point: sign in, read and edit your profile, read your own sign-ins.
///
/// Construct one with a configuration; `shared` is a convenience for apps that configure once.
public final class TophhieAuth: Sendable {
    public let configuration: TophhieConfiguration
    private let clock: any TophhieClock
    private let identity: IdentityClient
    private let tokens: TokenProvider
    private let graph: GraphClient

    /// - Parameters:
    ///   - transport: how requests are sent; URLSession by default.
    ///   - clock: where time comes from; tests and the demo pass a `ManualClock`.
    ///   - jitter: spreads retry waits; tests pass a constant.
    ///   - graphBudget: one budget shared by every account an agent watches: each sign-in page
    ///     and `GET /me` waits for room in it, and Graph's 429s slow that tenant there. nil (one
    ///     account): only the pages of a re-read walk are paced, by `RequestPacing`.
    public init(configuration: TophhieConfiguration, transport: any HTTPTransport = URLSessionTransport(), clock: any TophhieClock = SystemClock(), jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
                graphBudget: GraphBudget? = nil) {
        self.configuration = configuration
        self.clock = clock
        let requester = RetryingRequester(transport: transport, clock: clock, policy: RetryPolicy(maxAttempts: configuration.maxAttempts), deadline: configuration.requestDeadline, userAgent: configuration.userAgent, jitter: jitter)
        identity = IdentityClient(configuration: configuration, requester: requester, clock: clock)
        tokens = TokenProvider(configuration: configuration, identity: identity, cache: TokenCache(file: configuration.tokenCacheFile), clock: clock)
        graph = GraphClient(configuration: configuration, requester: requester, tokens: tokens, budget: graphBudget)
    }

    private static let sharedBox = SharedBox()

    /// The instance set with `configureShared(_:)`.
    /// - Precondition: `configureShared(_:)` was called.
    public static var shared: TophhieAuth {
        guard let instance = sharedBox.value else { preconditionFailure("call TophhieAuth.configureShared(_:) before using TophhieAuth.shared") }
        return instance
    }

    /// Sets the instance `shared` returns.
    public static func configureShared(_ configuration: TophhieConfiguration) {
        sharedBox.value = TophhieAuth(configuration: configuration)
    }

    // MARK: Sign-in

    /// Signs in with the device-code flow: shows the prompt, polls until the person finishes.
    ///
    /// `offline_access` is always requested so a refresh token comes back.
    /// - Parameters:
    ///   - scopes: Graph permissions such as `AuditLog.Read.All`.
    ///   - prompt: shows the identity platform's message with the code.
    /// - Throws: `.signIn(.declined / .expired / .badVerificationCode)`, `.identity`, `.network`.
    @discardableResult
    public func signIn(scopes: [String], prompt: @Sendable (DeviceCodePrompt) -> Void) async throws -> CachedSession {
        try configuration.validate()
        var requested = [TophhieScopes.offlineAccess]
        for scope in TophhieScopes.qualified(scopes, graphBaseURL: configuration.graphBaseURL) where !requested.contains(scope) { requested.append(scope) }
        let authorization = try await identity.requestDeviceCode(scopes: requested)
        let message = authorization.message ?? "To sign in, use a web browser to open the page \(authorization.verification_uri) and enter the code \(authorization.user_code) to authenticate."
        prompt(DeviceCodePrompt(message: message, userCode: authorization.user_code, verificationURI: authorization.verification_uri, expiresIn: authorization.expires_in))
        let grant = try await identity.pollForToken(authorization)
        guard let refreshToken = grant.refresh_token else {
            throw TophhieAuthError.identity(status: 200, error: "no refresh token was issued although offline_access was requested", aadsts: [])
        }
        let now = clock.now()
        let session = CachedSession(objectID: nil, userPrincipalName: nil, grantedScopes: grant.scope.map { $0.split(separator: " ").map(String.init) } ?? requested, requestedScopes: requested, accessToken: grant.access_token, accessTokenExpiresAt: now.addingTimeInterval(grant.expires_in), refreshToken: refreshToken, authority: configuration.authority.absoluteString, clientID: configuration.clientID, signedInAt: now, refreshedAt: nil)
        try await tokens.store(session)
        if TophhieScopes.covers(session.grantedScopes, TophhieScopes.userRead) || TophhieScopes.covers(session.grantedScopes, TophhieScopes.userReadWrite) {
            _ = try? await getUserProfile()
        }
        return try await tokens.currentSession() ?? session
    }

    /// Forgets the signed-in user: deletes the token cache.
    public func signOut() async throws {
        try await tokens.clear()
    }

    /// The cached session, if any, without touching the network.
    public func currentSession() async throws -> CachedSession? {
        try await tokens.currentSession()
    }

    /// Checks that a silent token can be had for `scope` (refreshing if needed).
    public func verifyToken(covering scope: String = TophhieScopes.userRead) async throws {
        _ = try await tokens.accessToken(covering: scope)
    }

    // MARK: Profile

    /// Reads `GET /me` with the framework's `$select` list.
    /// - Throws: `.profileFetch(status:graphCode:)`, `.interactionRequired`, `.network`.
    public func getUserProfile() async throws -> TophhieUserProfile {
        let url = URL(string: configuration.graphBaseURL.appendingPathComponent("me").absoluteString + "?$select=" + TophhieUserProfile.selectFields.joined(separator: ","))!
        let reply = try await graph.send("GET", url, scope: TophhieScopes.userRead, budgeted: true)
        guard reply.status == 200 else {
            throw TophhieAuthError.profileFetch(status: reply.status, graphCode: GraphErrorBody.code(in: reply.body), ids: reply.ids)
        }
        let profile: TophhieUserProfile
        do { profile = try JSONDecoder().decode(TophhieUserProfile.self, from: reply.body) } catch {
            throw TophhieAuthError.malformedResponse("the profile from GET /me lacks id or userPrincipalName, or is not JSON")
        }
        try await tokens.remember(objectID: profile.id, userPrincipalName: profile.userPrincipalName)
        return profile
    }

    /// Writes the changed fields with `PATCH /me`, then re-reads and returns the canonical profile.
    ///
    /// Sends nothing when `update.hasChanges` is false (returns a fresh read).
    /// - Throws: `.invalidLanguageTag` before any request; `.profileUpdate(status:graphCode:)` with
    ///   the 403 cause in `accessGate`; `.interactionRequired` when User.ReadWrite was not granted.
    public func updateProfile(_ update: TophhieProfileUpdate) async throws -> TophhieUserProfile {
        if let tag = update.preferredLanguage, !tag.isEmpty, !TophhieLanguages.isValidTag(tag) {
            throw TophhieAuthError.invalidLanguageTag(tag)
        }
        guard update.hasChanges else { return try await getUserProfile() }
        let url = configuration.graphBaseURL.appendingPathComponent("me")
        let reply = try await graph.send("PATCH", url, scope: TophhieScopes.userReadWrite, body: update.requestBody())
        guard reply.status == 204 || reply.status == 200 else {
            throw TophhieAuthError.profileUpdate(status: reply.status, graphCode: GraphErrorBody.code(in: reply.body), ids: reply.ids)
        }
        return try await getUserProfile()
    }

    /// Revokes every refresh token and browser session of the signed-in account
    /// (`POST /me/revokeSignInSessions`), this agent's own refresh token included: it must sign
    /// in again afterwards. Access tokens already issued live until they expire.
    /// - Throws: `.sessionRevocation(status:graphCode:)` with the 403 cause in `accessGate`;
    ///   `.interactionRequired` when `User.RevokeSessions.All` was never granted.
    public func revokeSignInSessions() async throws {
        let url = configuration.graphBaseURL.appendingPathComponent("me/revokeSignInSessions")
        let reply = try await graph.send("POST", url, scope: TophhieScopes.revokeSessions, body: Data())
        guard reply.status == 200 || reply.status == 204 else {
            throw TophhieAuthError.sessionRevocation(status: reply.status, graphCode: GraphErrorBody.code(in: reply.body), ids: reply.ids)
        }
    }

    // MARK: Sign-in history

    /// The user's own object id, from the cache or `GET /me`.
    public func userObjectID() async throws -> String {
        if let id = try await tokens.currentSession()?.objectID { return id }
        return try await getUserProfile().id
    }

    /// The newest `top` of your own sign-ins, newest first. Malformed events are skipped.
    /// - Parameters:
    ///   - top: how many; more than 1,000 are read across pages.
    ///   - streams: which streams, of those the configured API has; nil reads them all.
    /// - Throws: `.signInHistory(status:graphCode:)` with the 403 cause in `accessGate`.
    public func getSignInHistory(top: Int = 50, streams: [SignInStream]? = nil) async throws -> [TophhieSignInEvent] {
        guard top >= 1 else { throw TophhieAuthError.configuration("top must be at least 1, not \(top)") }
        let api = configuration.signInAPI
        do {
            return try await history(top: top, streams: streams, api: api)
        } catch TophhieAuthError.signInHistory(let status, _, _) where api == .beta && (status == 400 || status == 403) {
            // As the poll does: v1.0's interactive sign-ins rather than none.
            return try await history(top: top, streams: streams, api: .v1)
        }
    }

    private func history(top: Int, streams: [SignInStream]?, api: SignInLogAPI) async throws -> [TophhieSignInEvent] {
        let userID = try await userObjectID()
        var events: [TophhieSignInEvent] = []
        var seenIDs: Set<String> = []
        for stream in api.streams where streams?.contains(stream) ?? true {
            let query = try SignInQuery(userID: userID, top: min(top, 1000), api: api, stream: stream)
            var fetch = SignInFetch(events: [], skipped: [], lowerBound: .distantPast, requestedLowerBound: nil, pages: 0, duplicatesDropped: 0)
            var texts = SharedTexts()
            var pacing = RequestPacing()
            _ = try await fetchPages(query, limit: top, pageLimit: nil, recognizer: nil, texts: &texts, seenIDs: &seenIDs, into: &fetch, pacing: &pacing)
            events += fetch.events
        }
        // Newest first across the streams, as Graph orders each.
        events.sort { $0.createdDateTime > $1.createdDateTime }
        return Array(events.prefix(top))
    }

    /// Your sign-ins with `createdDateTime` at or after `since` (and at or before `until`), every
    /// stream the configured API has, for the agent's windowed poll. The lower bound is clamped
    /// to retention and to Graph's 90-day limit; `requestedLowerBound` in the result says when
    /// that happened.
    /// - Parameters:
    ///   - since: the earliest event time wanted.
    ///   - until: the latest, or nil for "up to now".
    ///   - recognizer: sign-ins it recognises from their bytes are listed in `records` and not
    ///     decoded into `events`; nil decodes every one.
    /// - Complexity: one request per page of up to 1,000 events, per stream.
    public func fetchSignIns(since: Date, until: Date? = nil, recognizer: (any SignInRecognizer)? = nil) async throws -> SignInFetch {
        let api = configuration.signInAPI
        return try await fetchSignIns(api.streams.map { SignInRead(stream: $0, notBefore: since, notAfter: until) }, api: api, recognizer: recognizer)
    }

    /// Reads each stretch of the log in turn, duplicates by id removed across them.
    ///
    /// When Graph refuses beta or its non-interactive filter (HTTP 400 or 403), the interactive
    /// stretches are read again from v1.0 and `fallback` says why: watching the front door is
    /// better than watching nothing. A refusal v1.0 repeats (no licence, no consent) is thrown.
    /// - Parameters:
    ///   - reads: what to read; a read of a stream `api` lacks is skipped.
    ///   - api: the version to read.
    ///   - recognizer: as for `fetchSignIns(since:until:recognizer:)`.
    ///   - keeping: what of each decoded sign-in to keep; nil keeps each whole.
    /// - Throws: `.signInHistory` with Graph's status and code; `.malformedResponse`.
    ///   - streamWaitLimit: nil reads as one: any failure is thrown. Set, the streams are
    ///     independent: a `Retry-After` up to this many seconds is waited, a longer one (or a
    ///     stream that stays throttled, answers 5xx or cannot be reached) skips the rest of that
    ///     stream's reads and is listed in `streamFailures`, and the other streams are read.
    public func fetchSignIns(_ reads: [SignInRead], api: SignInLogAPI, recognizer: (any SignInRecognizer)? = nil, keeping: SignInKeeping? = nil, streamWaitLimit: Double? = nil) async throws -> SignInFetch {
        do {
            return try await read(reads, api: api, recognizer: recognizer, keeping: keeping, streamWaitLimit: streamWaitLimit)
        } catch TophhieAuthError.signInHistory(let status, let code, _) where api == .beta && (status == 400 || status == 403) {
            var fetch = try await read(reads, api: .v1, recognizer: recognizer, keeping: keeping, streamWaitLimit: streamWaitLimit)
            fetch.fallback = SignInFallback(status: status, graphCode: code)
            return fetch
        }
    }

    private func read(_ reads: [SignInRead], api: SignInLogAPI, recognizer: (any SignInRecognizer)?, keeping: SignInKeeping?, streamWaitLimit: Double?) async throws -> SignInFetch {
        let now = clock.now()
        let retentionFloor = now.addingTimeInterval(-Double(configuration.retentionDays) * 86_400)
        // A minute inside Graph's limit, so the request is not refused for a 90-day-old bound.
        let graphFloor = now.addingTimeInterval(-90 * 86_400 + 60)
        let floor = max(retentionFloor, graphFloor)
        let userID = try await userObjectID()
        var fetch = SignInFetch(events: [], skipped: [], lowerBound: .distantFuture, requestedLowerBound: nil, pages: 0, duplicatesDropped: 0)
        fetch.api = api
        var seenIDs: Set<String> = []
        var texts = SharedTexts()
        var pacing = RequestPacing()
        // The sign-in log answers slowly; on a new connection that wait would cost CPU throughout.
        try await graph.openConnection(for: TophhieScopes.auditLogRead)
        for read in reads where api.streams.contains(read.stream) {
            // A stream that failed this time is not asked again until its next poll.
            if fetch.streamFailures.contains(where: { $0.stream == read.stream }) { continue }
            let lower = max(read.notBefore, floor)
            if let upper = read.notAfter, upper < lower {
                fetch.reads.append(SignInReadResult(read: read, pages: 0, oldest: nil, complete: true))
                continue
            }
            let query = try SignInQuery(userID: userID, notBefore: lower, notAfter: read.notAfter, top: 1000, api: api, stream: read.stream)
            let result: (pages: Int, oldest: Date?, complete: Bool)
            do {
                fetch.refusedRetryAfter = nil
                result = try await fetchPages(query, limit: nil, pageLimit: read.pageLimit, recognizer: recognizer, keeping: keeping, texts: &texts, seenIDs: &seenIDs, into: &fetch, maxRetryAfter: streamWaitLimit, pacing: &pacing)
            } catch let error as TophhieAuthError where streamWaitLimit != nil && Self.isStreamTrouble(error) {
                let retryAfter = fetch.refusedRetryAfter.map { clock.now().addingTimeInterval($0) }
                fetch.streamFailures.append(SignInStreamFailure(stream: read.stream, error: error, retryAfter: retryAfter))
                continue
            }
            fetch.reads.append(SignInReadResult(read: read, pages: result.pages, oldest: result.oldest, complete: result.complete))
            fetch.lowerBound = min(fetch.lowerBound, lower)
            if read.notBefore < floor { fetch.requestedLowerBound = min(fetch.requestedLowerBound ?? read.notBefore, read.notBefore) }
        }
        if fetch.lowerBound == .distantFuture { fetch.lowerBound = floor }
        return fetch
    }

    /// A failure that is the stream's trouble, not the account's: throttling, Graph's 5xx, the
    /// network. Refusals (401, 403, 400) and malformed pages still fail the whole read.
    static func isStreamTrouble(_ error: TophhieAuthError) -> Bool {
        switch error {
        case .signInHistory(let status, _, _): return RetryPolicy.isTransient(status)
        case .network: return true
        default: return false
        }
    }

    /// Follows `@odata.nextLink` verbatim until it is absent, `limit` events are read or
    /// `pageLimit` pages were.
    /// - Returns: the pages read, the oldest event time read, and whether the log's end was reached.
    /// - Throws: `.malformedResponse` when a link repeats (Graph would be read in a loop) or
    ///   `maxPages` pages did not reach the end: a poll that cannot finish says so.
    private func fetchPages(_ query: SignInQuery, limit: Int?, pageLimit: Int?, recognizer: (any SignInRecognizer)?, keeping: SignInKeeping? = nil,
                            texts: inout SharedTexts, seenIDs: inout Set<String>, into fetch: inout SignInFetch, maxRetryAfter: Double? = nil,
                            pacing: inout RequestPacing) async throws -> (pages: Int, oldest: Date?, complete: Bool) {
        var url = query.url(graphBaseURL: configuration.graphBaseURL)
        var seenLinks: Set<String> = [url.absoluteString]
        let eventsBefore = fetch.decoded
        var pages = 0
        var oldest: Date?
        while true {
            // The pages of a re-read walk are paced to Graph's budget; the reads a poll must make
            // (everything new, the first poll's history) are not held back. With a budget shared
            // by several accounts, it paces every page instead: theirs together are what Graph counts.
            if pageLimit != nil, graph.budget == nil {
                let wait = pacing.wait(now: clock.now())
                if wait > 0 { try await clock.sleep(seconds: wait) }
            }
            pacing.record(clock.now())
            let reply: GraphReply
            do {
                reply = try await graph.send("GET", url, scope: TophhieScopes.auditLogRead, maxRetryAfter: maxRetryAfter, budgeted: true)
            } catch let held as GraphBudgetHeld {
                // A 429 holds the tenant longer than this stream may wait: the stream fails as a
                // throttled one does without a budget, and is read again next poll.
                fetch.refusedRetryAfter = held.seconds
                throw TophhieAuthError.signInHistory(status: 429, graphCode: nil)
            }
            guard reply.status == 200 else {
                fetch.refusedRetryAfter = RetryAfter.seconds(reply.http.header("retry-after"), now: clock.now())
                throw TophhieAuthError.signInHistory(status: reply.status, graphCode: GraphErrorBody.code(in: reply.body), ids: reply.ids)
            }
            fetch.pages += 1
            pages += 1
            if let date = reply.http.header("date").flatMap(RetryAfter.httpDate) { fetch.graphDate = date }
            // Element by element: one event with a bad byte in an attacker-chosen device name
            // costs that event (reported with its id), not the page and every poll after it.
            let page = pages
            let stream = query.stream
            var reachedLimit = false
            let members: [String: JSONValue] = try reply.body.withUnsafeBytes { bytes in
                let parsed: (members: [String: JSONValue], elements: [Range<Int>]?)
                do { parsed = try JSONPage.extents(bytes, arrayMember: "value") } catch {
                    throw TophhieAuthError.malformedResponse("page \(page) of the sign-in log is not JSON (HTTP \(reply.status), \(reply.body.count) bytes)")
                }
                guard let ranges = parsed.elements else {
                    throw TophhieAuthError.malformedResponse("page \(page) of the sign-in log has no 'value' array")
                }
                for range in ranges {
                    let record = UnsafeRawBufferPointer(rebasing: bytes[range])
                    // A sign-in processed before, byte for byte, is only counted: decoding every
                    // sign-in of the re-read window was most of a poll with nothing new.
                    let key = recognizer?.key(of: record)
                    if let recognizer, let key, recognizer.isProcessed(key), let known = JSONLeadingMembers.idAndTime(record) {
                        oldest = min(oldest ?? known.time, known.time)
                        if seenIDs.insert(known.id).inserted {
                            fetch.records.append(SignInRecord(id: known.id, createdDateTime: known.time, key: key, recognised: true))
                        } else {
                            fetch.duplicatesDropped += 1
                        }
                        continue
                    }
                    switch JSONPage.element(bytes, range) {
                    case .value(let json):
                        do {
                            var event = try TophhieSignInEvent(json: json)
                            event.stream = stream
                            oldest = min(oldest ?? event.createdDateTime, event.createdDateTime)
                            if seenIDs.insert(event.id).inserted {
                                if let keeping { fetch.kept.append(keeping.keep(event, texts: &texts)) } else { fetch.events.append(event) }
                                if let key { fetch.records.append(SignInRecord(id: event.id, createdDateTime: event.createdDateTime, key: key, recognised: false)) }
                            } else {
                                fetch.duplicatesDropped += 1
                            }
                        } catch let malformed as MalformedSignIn {
                            fetch.skipped.append(malformed)
                        }
                    case .damaged(let id, let error):
                        fetch.skipped.append(MalformedSignIn.damaged(id: id, error))
                    }
                    if let limit, fetch.decoded - eventsBefore >= limit {
                        reachedLimit = true
                        return [:]
                    }
                }
                return parsed.members
            }
            if reachedLimit { return (pages, oldest, false) }
            guard let next = members["@odata.nextLink"]?.stringValue else { return (pages, oldest, true) }
            if let pageLimit, pages >= pageLimit { return (pages, oldest, false) }
            guard seenLinks.insert(next).inserted else {
                throw TophhieAuthError.malformedResponse("page \(pages) of the sign-in log links back to an earlier page; stopping instead of reading in a loop")
            }
            guard pages < configuration.maxPages else {
                throw TophhieAuthError.malformedResponse("the sign-in log still had more pages after \(configuration.maxPages); stopping instead of paging without end")
            }
            guard let nextURL = URL(string: next) else {
                throw TophhieAuthError.malformedResponse("page \(pages) of the sign-in log has an unreadable @odata.nextLink")
            }
            try Self.checkNextLink(nextURL, continues: query, graphBaseURL: configuration.graphBaseURL)
            url = nextURL
        }
    }
}

extension TophhieAuth {
    /// A `nextLink` is followed verbatim, but only when it continues the same self-filtered query:
    /// the same path, and either a filter that still holds `userId eq '<oid>'` or none beside a
    /// `$skiptoken`. Anything else (another resource, a filter without the user id) is refused
    /// rather than sent a token.
    static func checkNextLink(_ next: URL, continues query: SignInQuery, graphBaseURL: URL) throws {
        let expectedPath = SignInQuery.logURL(graphBaseURL: graphBaseURL, api: query.api).path
        guard let parts = URLComponents(url: next, resolvingAgainstBaseURL: false), parts.path == expectedPath else {
            throw TophhieAuthError.malformedResponse("Graph's @odata.nextLink points away from the sign-in log; not following it")
        }
        let items = parts.queryItems ?? []
        if let filter = items.first(where: { $0.name == "$filter" })?.value {
            // Graph may re-serialise the rest of the filter; the self-filter is what must survive.
            let normalised = filter.replacingOccurrences(of: "+", with: " ").lowercased()
            guard normalised.contains("userid eq '\(query.userID.lowercased())'") else {
                throw TophhieAuthError.malformedResponse("Graph's @odata.nextLink drops the self-filter on your user id; not following it")
            }
        } else if !items.contains(where: { $0.name == "$skiptoken" }) {
            throw TophhieAuthError.malformedResponse("Graph's @odata.nextLink has neither the sign-in filter nor a $skiptoken; not following it")
        }
    }
}

/// Holds the shared instance behind a lock.
private final class SharedBox: @unchecked Sendable {
    private let lock = NSLock()
    private var instance: TophhieAuth?
    var value: TophhieAuth? {
        get { lock.withLock { instance } }
        set { lock.withLock { instance = newValue } }
    }
}
