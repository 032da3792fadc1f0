import Foundation
import TophhieRules

/// The agent's alert path: one durable outbox per notifier, filled before the state commits and
/// drained after, so a crash or a receiver that is down loses nothing and repeats nothing.
public struct OutboxDispatch: AlertDispatch {
    /// One notifier with its route and its outbox.
    public struct Channel: Sendable {
        public let route: NotifierRoute
        public let store: OutboxStore
        public let delivery: OutboxDelivery
    }

    public let channels: [Channel]
    private let now: @Sendable () -> Date

    /// What opening the outboxes had to repair (an unreadable line skipped, a torn last line cut),
    /// one sentence each with its file and line, for the log: a repair is never silent.
    public var recoveryNotes: [String] { channels.flatMap(\.store.recoveryNotes) }

    /// Opens (or creates) every notifier's outbox under `<stateDirectory>/outbox`.
    /// - Parameters:
    ///   - sleep: waits between delivery retries; the demo and tests pass their clock's.
    ///   - budget: how long each channel may deliver in one cycle; the rest waits for the next,
    ///     so a slow receiver cannot keep the agent from reading Graph.
    public init(stateDirectory: URL, notifiers: [(any Notifier, NotifierRoute)], now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, budget: TimeInterval = OutboxDelivery.defaultBudget) throws {
        self.now = now
        channels = try notifiers.map { notifier, route in
            let store = try OutboxStore(stateDirectory: stateDirectory.path, notifier: notifier.name)
            return Channel(route: route, store: store, delivery: OutboxDelivery(store: store, notifier: notifier, now: now, sleep: sleep, random: random, budget: budget))
        }
    }

    @discardableResult
    public func append(_ alerts: [Alert], excluding: Set<String>) async throws -> Int {
        var added = 0
        for channel in channels where !excluding.contains(channel.store.notifier) {
            let accepted = alerts.filter(channel.route.accepts)
            if !accepted.isEmpty { added += try await channel.store.append(contentsOf: accepted, at: now()) }
        }
        return added
    }

    /// Drains every channel at once, each within its budget: one slow receiver does not hold
    /// up the others.
    public func deliverPending(budget: TimeInterval?) async -> [DeliveryReport] {
        await withTaskGroup(of: (Int, DeliveryReport).self) { group in
            for (index, channel) in channels.enumerated() {
                group.addTask { (index, await Self.deliver(channel, budget: budget)) }
            }
            var reports: [(Int, DeliveryReport)] = []
            for await report in group { reports.append(report) }
            return reports.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Sends alerts straight to each notifier, side by side, each attempt within
    /// `PollCycle.noticeDeliveryBudget`: nothing here touches the disk.
    public func deliverDirectly(_ alerts: [Alert]) async -> [String] {
        await withTaskGroup(of: [String].self) { group in
            for channel in channels {
                let accepted = alerts.filter(channel.route.accepts)
                guard !accepted.isEmpty else { continue }
                group.addTask {
                    var failures: [String] = []
                    for alert in accepted {
                        do {
                            try await DeliveryBudget.$secondsLeft.withValue(PollCycle.noticeDeliveryBudget) { try await channel.delivery.notifier.deliver(alert) }
                        } catch {
                            failures.append("\(channel.store.notifier): \(NotifierError.wrapping(error).message)")
                        }
                    }
                    return failures
                }
            }
            var failures: [String] = []
            for await some in group { failures += some }
            return failures.sorted()
        }
    }

    private static func deliver(_ channel: Channel, budget: TimeInterval?) async -> DeliveryReport {
        do {
            let drained = try await channel.delivery.drain(budget: budget)
            var report = DeliveryReport(notifier: channel.store.notifier, delivered: drained.delivered.count, pending: drained.remaining, failed: drained.deadLettered.count, lastError: drained.stoppedAt?.reason ?? drained.deadLettered.last?.reason ?? drained.disabled?.reason, disabled: drained.disabled)
            report.failingSince = drained.failingSince
            report.recoveredFrom = drained.recoveredFrom
            report.deadLettered = drained.deadLettered
            report.budgetSpent = drained.budgetSpent
            return report
        } catch {
            let pending = await channel.store.pendingCount
            return DeliveryReport(notifier: channel.store.notifier, delivered: 0, pending: pending, failed: 0, lastError: "\(error)")
        }
    }
}
