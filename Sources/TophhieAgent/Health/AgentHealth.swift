import Foundation
import TophhieAuth
import TophhieJSON

/// What an operator (or a monitor of the monitor) needs to know about the agent, read from its
/// state directory without a lock and without writing: `status --json` prints it and the
/// metrics file is written from it.
public struct AgentHealth: Sendable, Equatable {
    /// One notifier's outbox.
    public struct Channel: Sendable, Equatable {
        public var name: String
        public var pending: Int
        public var deadLettered: Int
        /// When the oldest pending alert was queued.
        public var oldestPending: Date?
        /// No delivery before this time (the receiver's `Retry-After`).
        public var retryAfter: Date?
        public var disabled: OutboxChannelStatus.Disabled?
        /// Why the outbox could not be read, when it could not.
        public var error: String?
    }

    /// A standing problem as the state remembers it.
    public struct Problem: Sendable, Equatable {
        public var kind: String
        public var detail: String
        public var since: Date
        public var notified: Bool
    }

    public var stateDirectory: String
    public var lastSuccessfulPoll: Date?
    public var newestEventTime: Date?
    public var learned: Bool
    public var problem: Problem?
    /// Why `state.json` cannot be used, when it cannot.
    public var stateError: String?
    public var notifiers: [Channel]
    /// The sign-in streams the agent reads: v1.0's interactive one only while Graph refuses beta.
    public var streams: [SignInStream] = SignInLogAPI.beta.streams
    /// Set while Graph refuses beta.
    public var fallback: StreamFallback?
    /// Streams throttled or failing while the others are read: since when, until when Graph
    /// asked the agent to wait, and why.
    public var failingStreams: [SignInStream: StreamHealth] = [:]
    /// Where each stream's re-read of the window below the recent reads has got to.
    public var rereads: [SignInStream: RereadCursor] = [:]
    /// Where each stream's sweep down to the retention floor has got to.
    public var sweeps: [SignInStream: RereadCursor] = [:]
    /// The last poll that started a walk down to the retention floor.
    public var lastSweep: Date?
    /// Per stream read, by when a late sign-in anywhere in the lookback will have been found.
    public var forecasts: [SignInStream: RereadForecast] = [:]
    /// While the place rules learn: "place rules learning until …", as the last poll said.
    public var placeLearning: String?

    /// Reads the state and every named notifier's outbox.
    /// - Parameters:
    ///   - api: the configured `graph.api`.
    ///   - planner: the configured planner, for the forecasts; nil leaves them out.
    public static func read(stateDirectory: URL, notifiers: [String], api: SignInLogAPI = .beta, planner: PollPlanner? = nil) async -> AgentHealth {
        var health = AgentHealth(stateDirectory: stateDirectory.path, learned: false, notifiers: [])
        health.streams = api.streams
        do {
            let state = try StateStore(stateDirectory: stateDirectory).load()
            health.lastSuccessfulPoll = state.lastSuccessfulPoll
            health.newestEventTime = state.newestEventTime
            health.learned = state.learned
            health.problem = state.problem.map { Problem(kind: $0.kind.rawValue, detail: $0.detail, since: $0.since, notified: $0.notified) }
            health.failingStreams = state.streamHealth
            health.rereads = state.rereads
            health.sweeps = state.sweeps
            health.lastSweep = state.lastSweep
            health.placeLearning = state.placeLearning
            if api == .beta, let fallback = state.fallback {
                health.fallback = fallback
                health.streams = SignInLogAPI.v1.streams
            }
            if let planner, state.learned {
                for stream in health.streams { health.forecasts[stream] = planner.forecast(state.rereads[stream], lastPoll: state.lastSuccessfulPoll) }
            }
        } catch {
            health.stateError = "\(error)"
        }
        for name in notifiers {
            var channel = Channel(name: name, pending: 0, deadLettered: 0)
            do {
                let store = try OutboxStore(stateDirectory: stateDirectory.path, notifier: name, repair: false)
                let status = await store.status
                channel.pending = await store.pendingCount
                channel.oldestPending = await store.oldestPendingAppendedAt
                channel.deadLettered = try await store.deadLetters().count
                channel.retryAfter = status.notBefore
                channel.disabled = status.disabled
            } catch {
                channel.error = "\(error)"
            }
            health.notifiers.append(channel)
        }
        return health
    }

    /// Whether everything is as it should be: state readable, no problem, nothing disabled.
    public var isHealthy: Bool {
        stateError == nil && problem == nil && notifiers.allSatisfy { $0.disabled == nil && $0.error == nil }
    }

    /// As JSON, ISO-8601 times; absent values are `null`.
    public var jsonValue: JSONValue {
        func time(_ date: Date?) -> JSONValue { date.map { .string(GraphTimestamp.alertText($0)) } ?? .null }
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        let problem: JSONValue = self.problem.map { .object(["kind": .string($0.kind), "detail": .string($0.detail), "since": time($0.since), "notified": .bool($0.notified)]) } ?? .null
        let channels: [JSONValue] = notifiers.map { channel in
            .object([
                "name": .string(channel.name),
                "pending": .int(Int64(channel.pending)),
                "deadLettered": .int(Int64(channel.deadLettered)),
                "oldestPending": time(channel.oldestPending),
                "retryAfter": time(channel.retryAfter),
                "disabled": channel.disabled.map { .object(["reason": .string($0.reason), "since": time($0.since)]) } ?? .null,
                "error": text(channel.error),
            ])
        }
        let value = JSONValue.object([
            "healthy": .bool(isHealthy),
            "stateDirectory": .string(stateDirectory),
            "lastSuccessfulPoll": time(lastSuccessfulPoll),
            "newestEventTime": time(newestEventTime),
            "learned": .bool(learned),
            "placeLearning": text(placeLearning),
            "problem": problem,
            "stateError": text(stateError),
            "notifiers": .array(channels),
            "streams": .array(streams.map { .string($0.rawValue) }),
            "streamsRefusedSince": time(fallback?.since),
            "rereads": .array(rereads.sorted { $0.key.rawValue < $1.key.rawValue }.map { stream, cursor in
                let forecast = forecasts[stream]
                let sweep = sweeps[stream]
                return .object(["stream": .string(stream.rawValue), "at": time(cursor.upper), "downTo": time(cursor.floor),
                                "pagesRead": .int(Int64(cursor.pages)), "walkPages": forecast?.walkPages.map { .int(Int64($0)) } ?? .null,
                                "pagesPerPoll": forecast.map { .int(Int64($0.pagesPerPoll)) } ?? .null,
                                "lateSignInFoundBy": time(forecast?.foundBy),
                                "sweep": .bool(sweep?.upper != nil), "sweepAt": time(sweep?.upper), "sweepDownTo": time(sweep?.floor),
                                "lastSweep": time(sweep?.lastSweep ?? cursor.lastSweep)])
            }),
            "failingStreams": .array(failingStreams.sorted { $0.key.rawValue < $1.key.rawValue }.map { stream, health in
                .object(["stream": .string(stream.rawValue), "since": time(health.failingSince), "retryAfter": time(health.retryAfter),
                         "readFrom": time(health.readFrom), "error": .string(health.lastError), "told": .bool(health.told)])
            }),
        ])
        return value
    }
}
