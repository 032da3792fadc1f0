import Foundation
import TophhieAuth
import TophhieRules

/// What the agent keeps between polls: how far the log has been read, the sign-ins already
/// processed, the problem it last told the user about (so a notice is sent once, not once per
/// poll), and which file holds the engine's state.
///
/// The engine's state lives in a file of its own (`StateStore`): a poll whose sign-ins were all
/// processed before neither reads nor writes it.
public struct AgentState: Codable, Sendable, Equatable {
    /// Bumped when the shape changes; an unknown version is refused, not misread.
    public var version: Int
    /// The last poll that read the log successfully: the next window starts a lookback before it.
    public var lastSuccessfulPoll: Date?
    /// The newest `createdDateTime` seen.
    public var newestEventTime: Date?
    /// Whether the first run (learning baselines from history) has completed.
    public var learned: Bool
    /// The condition the user was last told about, until a poll succeeds again.
    public var problem: AgentProblem?
    /// The end of the last coverage gap reported, so one gap is reported once.
    public var reportedGapEnd: Date?

    /// Unreadable events already reported (id, or the problem for one without an id), with
    /// when: each is told once, not once per poll that re-reads it.
    public var reportedUnreadable: [String: Date]?

    /// The last poll that read the whole retained log (the daily sweep for late publications).
    public var lastSweep: Date?
    /// While the place rules still learn, as the last poll that ran the rules said it
    /// ("place rules learning until …", `RuleSet.placeLearning`), for `status`.
    public var placeLearning: String?
    /// The same learning as a span of time (since the least advanced place rule began, until at
    /// least when), for the report's timeline.
    public var placeLearningPeriod: DateInterval?
    /// The coverage gaps told (sign-ins lost to retention), the newest `coverageGapLimit`, for
    /// the report's timeline.
    public var coverageGaps: [CoverageGap] = []
    public static let coverageGapLimit = 20

    /// Where each stream's re-read of the window below the recent reads has got to.
    public var rereads: [SignInStream: RereadCursor] = [:]
    /// Where each stream's sweep down to the retention floor has got to.
    public var sweeps: [SignInStream: RereadCursor] = [:]

    /// Set while Graph refuses beta and the agent reads v1.0's interactive sign-ins only.
    public var fallback: StreamFallback?

    /// Each stream that is throttled or failing while the other is read: its `Retry-After`,
    /// since when, and where its next read starts. Absent for a stream that keeps up.
    public var streamHealth: [SignInStream: StreamHealth] = [:]

    /// Graph's time when a host clock off by more than 5 minutes was told; nil once they agree.
    public var clockSkewSince: Date?
    /// The rule warnings last told (`PollCycle.ruleWarnings`, hashed), so a set unchanged since
    /// is not told again.
    public var ruleWarningsTold: String?
    /// The revocation (`SessionRevocation.at`) last told through the notifiers.
    public var sessionsRevokedTold: Date?
    /// The newest high and critical detections (at most `recentHighAlertLimit`), for `respond`.
    public var recentHighAlerts: [RecentAlert] = []
    public static let recentHighAlertLimit = 20

    /// The sign-ins the engine has processed, recognised from their bytes by the next poll. Nil
    /// until the first poll.
    public var processed: ProcessedSignIns?

    /// Which engine file goes with this state (`engine-<n>.json`); nil before the first.
    public internal(set) var engineGeneration: Int?

    /// The engine's state as a version-1 file held it, inside this one; the next commit moves
    /// it to a file of its own. Never written here.
    var inlineEngine: EngineState?

    public static let currentVersion = 2
    /// How long a reported unreadable event is remembered: past Graph's 30-day retention.
    public static let unreadableMemory: TimeInterval = 31 * 86_400

    public init() {
        version = Self.currentVersion
        learned = false
    }

    private enum CodingKeys: String, CodingKey {
        case version, lastSuccessfulPoll, newestEventTime, learned, problem, reportedGapEnd, reportedUnreadable, lastSweep, processed, engineGeneration
        case rereads, sweeps, fallback, clockSkewSince, ruleWarningsTold, sessionsRevokedTold, recentHighAlerts
        case streamHealth, placeLearning, placeLearningPeriod, coverageGaps
        case engine
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        lastSuccessfulPoll = try container.decodeIfPresent(Date.self, forKey: .lastSuccessfulPoll)
        newestEventTime = try container.decodeIfPresent(Date.self, forKey: .newestEventTime)
        learned = try container.decode(Bool.self, forKey: .learned)
        problem = try container.decodeIfPresent(AgentProblem.self, forKey: .problem)
        reportedGapEnd = try container.decodeIfPresent(Date.self, forKey: .reportedGapEnd)
        reportedUnreadable = try container.decodeIfPresent([String: Date].self, forKey: .reportedUnreadable)
        lastSweep = try container.decodeIfPresent(Date.self, forKey: .lastSweep)
        processed = try container.decodeIfPresent(ProcessedSignIns.self, forKey: .processed)
        engineGeneration = try container.decodeIfPresent(Int.self, forKey: .engineGeneration)
        let cursors = try container.decodeIfPresent([String: RereadCursor].self, forKey: .rereads) ?? [:]
        rereads = Dictionary(uniqueKeysWithValues: cursors.compactMap { key, value in SignInStream(rawValue: key).map { ($0, value) } })
        let sweepCursors = try container.decodeIfPresent([String: RereadCursor].self, forKey: .sweeps) ?? [:]
        sweeps = Dictionary(uniqueKeysWithValues: sweepCursors.compactMap { key, value in SignInStream(rawValue: key).map { ($0, value) } })
        fallback = try container.decodeIfPresent(StreamFallback.self, forKey: .fallback)
        let health = try container.decodeIfPresent([String: StreamHealth].self, forKey: .streamHealth) ?? [:]
        streamHealth = Dictionary(uniqueKeysWithValues: health.compactMap { key, value in SignInStream(rawValue: key).map { ($0, value) } })
        clockSkewSince = try container.decodeIfPresent(Date.self, forKey: .clockSkewSince)
        ruleWarningsTold = try container.decodeIfPresent(String.self, forKey: .ruleWarningsTold)
        sessionsRevokedTold = try container.decodeIfPresent(Date.self, forKey: .sessionsRevokedTold)
        recentHighAlerts = try container.decodeIfPresent([RecentAlert].self, forKey: .recentHighAlerts) ?? []
        placeLearning = try container.decodeIfPresent(String.self, forKey: .placeLearning)
        placeLearningPeriod = try container.decodeIfPresent(DateInterval.self, forKey: .placeLearningPeriod)
        coverageGaps = try container.decodeIfPresent([CoverageGap].self, forKey: .coverageGaps) ?? []
        if version == 1 { inlineEngine = try container.decode(EngineState.self, forKey: .engine) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encodeIfPresent(lastSuccessfulPoll, forKey: .lastSuccessfulPoll)
        try container.encodeIfPresent(newestEventTime, forKey: .newestEventTime)
        try container.encode(learned, forKey: .learned)
        try container.encodeIfPresent(problem, forKey: .problem)
        try container.encodeIfPresent(reportedGapEnd, forKey: .reportedGapEnd)
        try container.encodeIfPresent(reportedUnreadable, forKey: .reportedUnreadable)
        try container.encodeIfPresent(lastSweep, forKey: .lastSweep)
        try container.encodeIfPresent(processed, forKey: .processed)
        try container.encodeIfPresent(engineGeneration, forKey: .engineGeneration)
        if !rereads.isEmpty { try container.encode(Dictionary(uniqueKeysWithValues: rereads.map { ($0.key.rawValue, $0.value) }), forKey: .rereads) }
        if !sweeps.isEmpty { try container.encode(Dictionary(uniqueKeysWithValues: sweeps.map { ($0.key.rawValue, $0.value) }), forKey: .sweeps) }
        try container.encodeIfPresent(fallback, forKey: .fallback)
        if !streamHealth.isEmpty { try container.encode(Dictionary(uniqueKeysWithValues: streamHealth.map { ($0.key.rawValue, $0.value) }), forKey: .streamHealth) }
        try container.encodeIfPresent(clockSkewSince, forKey: .clockSkewSince)
        try container.encodeIfPresent(ruleWarningsTold, forKey: .ruleWarningsTold)
        try container.encodeIfPresent(sessionsRevokedTold, forKey: .sessionsRevokedTold)
        if !recentHighAlerts.isEmpty { try container.encode(recentHighAlerts, forKey: .recentHighAlerts) }
        try container.encodeIfPresent(placeLearning, forKey: .placeLearning)
        try container.encodeIfPresent(placeLearningPeriod, forKey: .placeLearningPeriod)
        if !coverageGaps.isEmpty { try container.encode(coverageGaps, forKey: .coverageGaps) }
    }
}

/// A high or critical detection, as `respond` lists it.
public struct RecentAlert: Codable, Sendable, Equatable {
    public var id: String
    public var rule: String
    public var title: String
    public var summary: String
    public var detectedAt: Date
}

/// A condition that stops monitoring, remembered so its notice goes out once.
public struct AgentProblem: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// The refresh token was refused or never existed: `login` must be run again.
        case signInNeeded
        /// Graph refused access (licence, role or consent).
        case accessDenied
        /// Network or Graph failures that persisted.
        case unavailable
    }

    public var kind: Kind
    /// Plain words: the cause and the fix.
    public var detail: String
    public var since: Date
    /// Whether the notice for it has been sent (an unavailable spell is told only when it lasts).
    public var notified: Bool
    /// Polls in a row that ended this way.
    public var polls: Int
    /// The id of the notice that told of it, once sent: the recovery notice resolves it.
    public var noticeID: String?

    public init(kind: Kind, detail: String, since: Date, notified: Bool, polls: Int = 1) {
        self.kind = kind
        self.detail = detail
        self.since = since
        self.notified = notified
        self.polls = polls
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(Kind.self, forKey: .kind)
        detail = try container.decode(String.self, forKey: .detail)
        since = try container.decode(Date.self, forKey: .since)
        notified = try container.decode(Bool.self, forKey: .notified)
        polls = try container.decodeIfPresent(Int.self, forKey: .polls) ?? 1
        noticeID = try container.decodeIfPresent(String.self, forKey: .noticeID)
    }
}
