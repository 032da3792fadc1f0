import Foundation
import TophhieRules

/// What one drain of an outbox did.
public struct OutboxDrainReport: Sendable, Hashable {
    /// An alert that was not delivered, and why.
    public struct Failure: Sendable, Hashable {
        public var id: String
        public var reason: String
    }

    /// Ids delivered, in order.
    public var delivered: [String] = []
    /// Alerts given up on, in order.
    public var deadLettered: [Failure] = []
    /// The alert the drain stopped at, when a transient failure outlasted this cycle.
    public var stoppedAt: Failure?
    /// Alerts still queued after the drain.
    public var remaining = 0
    /// Attempts made, failures included.
    public var attempts = 0
    /// True when nothing was tried because the receiver's `Retry-After` has not passed.
    public var waitingForRetryAfter = false
    /// Set while the receiver has disabled this channel (HTTP 410); nothing is sent.
    public var disabled: OutboxChannelStatus.Disabled?
    /// Since when the channel has not delivered what it holds, while it has not.
    public var failingSince: Date?
    /// When the failing spell this drain ended began.
    public var recoveredFrom: Date?
    /// The drain stopped at its time budget with alerts still to send (next cycle sends them).
    public var budgetSpent = false
}

/// Drains one notifier's outbox in order, with retries.
///
/// A transient failure is retried per `DeliveryRetryPolicy`; when the policy defers, the drain
/// stops there so order is kept, and the next drain starts with the same alert. A permanent
/// failure dead-letters the alert (reported) and the drain moves on.
public actor OutboxDelivery {
    public nonisolated let store: OutboxStore
    public nonisolated let notifier: any Notifier
    private let policySettings: DeliveryRetryPolicy.Settings
    private let now: @Sendable () -> Date
    private let sleep: @Sendable (Duration) async throws -> Void
    private let random: @Sendable () -> Double
    private let budget: TimeInterval

    /// How many queued alerts a drain reads from the outbox at once.
    static let batchSize = 256

    /// How long one channel delivers in a cycle by default: well under the 5-minute poll.
    public static let defaultBudget: TimeInterval = 60
    /// Less budget than this left, no attempt starts: it could not be answered in time.
    static let shortestAttempt: TimeInterval = 1

    /// - Parameters:
    ///   - now: the clock for ages and settlement times.
    ///   - sleep: waits between retries; tests pass one that returns at once.
    ///   - random: uniform draws in [0, 1) for jitter.
    public init(store: OutboxStore, notifier: any Notifier, policy: DeliveryRetryPolicy.Settings = .init(),
                now: @escaping @Sendable () -> Date = { Date() },
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
                budget: TimeInterval = OutboxDelivery.defaultBudget) {
        self.budget = budget
        self.store = store
        self.notifier = notifier
        self.policySettings = policy
        self.now = now
        self.sleep = sleep
        self.random = random
    }

    /// Delivers queued alerts oldest first until the queue is empty or a transient failure
    /// defers the rest to the next drain.
    /// - Throws: `OutboxError` when the outbox cannot be written, `CancellationError` when
    ///   cancelled; delivery failures are reported, not thrown.
    /// - Parameter budget: seconds this drain may take, when not the configured budget.
    public func drain(budget: TimeInterval? = nil) async throws -> OutboxDrainReport {
        let budget = budget.map { min($0, self.budget) } ?? self.budget
        var report = OutboxDrainReport()
        // Both live in the store's status file, so a cron poll honours what the last one was told.
        var status = await store.status
        if let disabled = status.disabled {
            report.remaining = await store.pendingCount
            report.disabled = disabled
            return report
        }
        if let notBefore = status.notBefore {
            if now() < notBefore {
                report.remaining = await store.pendingCount
                report.waitingForRetryAfter = report.remaining > 0
                if report.waitingForRetryAfter { try await noteHealth(&report, status: &status) }
                return report
            }
            status.notBefore = nil
            try await store.setStatus(status)
        }
        var policy = DeliveryRetryPolicy(settings: policySettings)
        let started = now()
        // The queue is read a batch at a time (a backlog is never held decoded whole); every
        // alert of a batch is settled or the drain stops, so the next batch starts after it.
        var batch = try await store.pendingEntries(limit: Self.batchSize)
        var batchIndex = 0
        drainLoop: while true {
            if batchIndex == batch.count {
                let last = batch.last?.alert.id
                batch = try await store.pendingEntries(limit: Self.batchSize)
                batchIndex = 0
                if batch.isEmpty || batch.first?.alert.id == last { break drainLoop }
            }
            let entry = batch[batchIndex]
            batchIndex += 1
            try Task.checkCancellation()
            if budget - now().timeIntervalSince(started) < Self.shortestAttempt {
                report.budgetSpent = true
                break drainLoop
            }
            policy.nextAlert()
            while true {
                report.attempts += 1
                do {
                    // The budget is a deadline: an attempt waits at most what is left of it.
                    let left = budget - now().timeIntervalSince(started)
                    try await DeliveryBudget.$secondsLeft.withValue(left) { try await notifier.deliver(entry.alert) }
                    try await store.markDelivered(entry.alert.id, at: now())
                    report.delivered.append(entry.alert.id)
                    continue drainLoop
                } catch let error as OutboxError {
                    throw error
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    let failure = NotifierError.wrapping(error)
                    let age = Duration.milliseconds(Int64(max(0, now().timeIntervalSince(entry.appendedAt)) * 1000))
                    switch policy.decide(after: failure, age: age, random: random()) {
                    case .retry(let delay):
                        // A retry that could not start before the budget ends waits for the next cycle.
                        guard now().timeIntervalSince(started) + DeliveryRetryPolicy.seconds(delay) + Self.shortestAttempt <= budget else {
                            report.stoppedAt = .init(id: entry.alert.id, reason: failure.message)
                            report.budgetSpent = true
                            break drainLoop
                        }
                        try await sleep(delay)
                    case .deferToNextCycle(let wait):
                        if let wait {
                            status.notBefore = now().addingTimeInterval(DeliveryRetryPolicy.seconds(wait))
                            try await store.setStatus(status)
                        }
                        report.stoppedAt = .init(id: entry.alert.id, reason: failure.message)
                        break drainLoop
                    case .disableChannel(let reason):
                        let disabled = OutboxChannelStatus.Disabled(reason: reason, since: now())
                        status.disabled = disabled
                        try await store.setStatus(status)
                        report.disabled = disabled
                        report.stoppedAt = .init(id: entry.alert.id, reason: failure.message)
                        break drainLoop
                    case .deadLetter(let reason):
                        try await store.markDeadLettered(entry.alert.id, reason: reason, at: now())
                        report.deadLettered.append(.init(id: entry.alert.id, reason: reason))
                        continue drainLoop
                    }
                }
            }
        }
        report.remaining = await store.pendingCount
        try await noteHealth(&report, status: &status)
        return report
    }

    /// The channel-health state machine: a drain that leaves alerts behind a failure starts
    /// (or continues) a failing spell; only one in which the receiver accepted an alert (2xx)
    /// and that leaves none stuck ends it. Giving alerts up is not recovering: a drain that
    /// dead-lettered its queue and delivered nothing leaves the spell standing.
    private func noteHealth(_ report: inout OutboxDrainReport, status: inout OutboxChannelStatus) async throws {
        let failing = report.stoppedAt != nil || report.waitingForRetryAfter
        if failing {
            if status.failingSince == nil {
                status.failingSince = now()
                try await store.setStatus(status)
            }
            report.failingSince = status.failingSince
        } else if report.delivered.isEmpty {
            report.failingSince = status.failingSince
        } else if let since = status.failingSince, report.disabled == nil {
            report.recoveredFrom = since
            status.failingSince = nil
            try await store.setStatus(status)
        }
    }
}
