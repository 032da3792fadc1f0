import Foundation

/// What one windowed fetch of the sign-in log returned.
public struct SignInFetch: Sendable {
    /// Events in the order Graph sent them (newest first), duplicates by id removed; with a
    /// recognizer, only those it did not recognise.
    public var events: [TophhieSignInEvent]
    /// With a `SignInKeeping`, the decoded events as kept, in the same order; `events` is then empty.
    public var kept: [KeptSignIn] = []
    /// Events that could not be read, each reported and skipped.
    public var skipped: [MalformedSignIn]
    /// The lower bound actually sent, after clamping to retention and Graph's 90-day limit.
    public var lowerBound: Date
    /// The lower bound asked for, when clamping moved it (a coverage gap: events before
    /// `lowerBound` are gone).
    public var requestedLowerBound: Date?
    /// How many pages were read.
    public var pages: Int
    /// Ids seen more than once across the pages (Graph republishes events).
    public var duplicatesDropped: Int
    /// With a recognizer: every sign-in read, recognised or decoded, in Graph's order,
    /// duplicates removed. Empty without one.
    public var records: [SignInRecord] = []
    /// The version read: the configured one, or v1.0 after a `fallback`.
    public var api: SignInLogAPI = .v1
    /// Set when Graph refused beta and the interactive stream was read from v1.0 instead.
    public var fallback: SignInFallback?
    /// How each read went, in the order asked.
    public var reads: [SignInReadResult] = []
    /// Graph's time by the `Date` header of its last reply, when it sent one.
    public var graphDate: Date?
    /// With independent streams: each stream whose read failed this time (throttled, 5xx, the
    /// network), the rest of its reads skipped. The other streams' sign-ins are here as usual.
    public var streamFailures: [SignInStreamFailure] = []
    /// The `Retry-After` of the last refused page, in seconds, for the stream it failed.
    var refusedRetryAfter: Double?

    /// The streams this fetch read.
    public var streams: [SignInStream] { api.streams }

    /// How many sign-ins were read, decoded or recognised (duplicates and unreadable ones aside).
    public var count: Int { decoded + records.count(where: \.recognised) }
    /// How many sign-ins were decoded, kept or whole.
    public var decoded: Int { events.count + kept.count }
}

/// One stream's read that failed while the others went on.
public struct SignInStreamFailure: Sendable {
    public var stream: SignInStream
    /// What went wrong, as a fetch of that stream alone would have thrown it.
    public var error: TophhieAuthError
    /// Not to be asked again before this time: Graph's `Retry-After`, when it sent one.
    public var retryAfter: Date?

    public init(stream: SignInStream, error: TophhieAuthError, retryAfter: Date?) {
        self.stream = stream
        self.error = error
        self.retryAfter = retryAfter
    }
}
