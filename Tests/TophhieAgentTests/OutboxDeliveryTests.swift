import Foundation
import LoopbackHTTP
import Testing
import TophhieRules
import TophhieSystem
@testable import TophhieAgent

/// Records requested sleeps instead of sleeping.
final class RecordedSleeps: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Duration] = []
    var sleeps: [Duration] {
        lock.lock(); defer { lock.unlock() }
        return storage
    }
    func sleep(_ duration: Duration) async throws {
        record(duration)
    }
    private func record(_ duration: Duration) {
        lock.lock(); defer { lock.unlock() }
        storage.append(duration)
    }
}

/// Refuses the alerts with the given ids for good (HTTP 422) and records the others.
actor RefusingNotifier: Notifier {
    nonisolated let name: String
    private let refused: Set<String>
    private(set) var deliveredIDs: [String] = []
    init(name: String, refused: Set<String>) {
        self.name = name
        self.refused = refused
    }
    func deliver(_ alert: Alert) async throws {
        if refused.contains(alert.id) { throw NotifierError.permanent("HTTP 422") }
        deliveredIDs.append(alert.id)
    }
}

/// A switch the test flips while the receiver runs.
final class ReceiverSwitch: @unchecked Sendable {
    private let lock = NSLock()
    private var up = false
    var isUp: Bool {
        lock.lock(); defer { lock.unlock() }
        return up
    }
    func set(_ value: Bool) {
        lock.lock(); defer { lock.unlock() }
        up = value
    }
}

@Suite(.timeLimit(.minutes(20))) struct OutboxDeliveryTests {
    static let t0 = Date(timeIntervalSince1970: 1_764_680_000)

    func delivery(_ store: OutboxStore, _ notifier: any Notifier, sleeps: RecordedSleeps, clock: TestClock? = nil,
                  policy: DeliveryRetryPolicy.Settings = .init()) -> OutboxDelivery {
        let clock = clock ?? TestClock(start: Self.t0)
        return OutboxDelivery(store: store, notifier: notifier, policy: policy, now: { clock.now }, sleep: sleeps.sleep, random: { 0.5 })
    }

    @Test func transientFailuresAreRetriedWithBackoff() async throws {
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "rec")
        try await store.append(contentsOf: [NotifierTestAlerts.alert(id: "a-1"), NotifierTestAlerts.alert(id: "a-2")], at: Self.t0)
        let recorder = RecordingNotifier(name: "rec")
        await recorder.failNext([.transient("down"), .transient("down")])
        let sleeps = RecordedSleeps()
        let report = try await delivery(store, recorder, sleeps: sleeps).drain()
        #expect(report.delivered == ["a-1", "a-2"])
        #expect(report.attempts == 4)
        #expect(report.remaining == 0)
        #expect(sleeps.sleeps == [.milliseconds(500), .seconds(1)])
        #expect(await recorder.deliveredIDs == ["a-1", "a-2"])
    }

    /// A backlog longer than a batch, its file damaged in the middle, compacted several times
    /// while it drains, with dead letters among the deliveries: every alert once, in order, and
    /// the alerts read back from the file are the ones queued.
    @Test func aBacklogOfManyBatchesDrainsOnceInOrderThroughCompactionsAndRepair() async throws {
        let dir = TemporaryStateDirectory()
        let ids = (0..<700).map { String(format: "b-%04d", $0) }
        do {
            let store = try OutboxStore(stateDirectory: dir.path, notifier: "rec")
            try await store.append(contentsOf: ids.prefix(400).map { NotifierTestAlerts.alert(id: $0) }, at: Self.t0)
        }
        // A damaged line between two appends: the repair at open moves it aside and every offset after it.
        let queue = "\(dir.path)/outbox/rec.jsonl"
        try DurableFile.append(Array("{\"alert\": damaged}\n".utf8), to: queue)
        do {
            let store = try OutboxStore(stateDirectory: dir.path, notifier: "rec")
            try await store.append(contentsOf: ids.suffix(300).map { NotifierTestAlerts.alert(id: $0) }, at: Self.t0)
        }
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "rec", compactionThreshold: 50)
        #expect(await store.pendingCount == 700)
        let deadIDs = [ids[0], ids[300]]
        let recorder = RefusingNotifier(name: "rec", refused: Set(deadIDs))
        let report = try await delivery(store, recorder, sleeps: RecordedSleeps()).drain()
        #expect(report.deadLettered.map(\.id) == deadIDs)
        #expect(report.delivered == ids.filter { !deadIDs.contains($0) })
        #expect(await recorder.deliveredIDs == report.delivered)
        #expect(try await store.deadLetters().map(\.alert) == deadIDs.map { NotifierTestAlerts.alert(id: $0) })
        #expect(report.remaining == 0)
        #expect(try await store.append(NotifierTestAlerts.alert(id: "after"), at: Self.t0))
        #expect(try await OutboxStore(stateDirectory: dir.path, notifier: "rec").pendingEntries().map(\.alert) == [NotifierTestAlerts.alert(id: "after")])
    }

    @Test func permanentFailureIsDeadLetteredAndTheRestGoesOn() async throws {
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "rec")
        try await store.append(contentsOf: (1...3).map { NotifierTestAlerts.alert(id: "a-\($0)") }, at: Self.t0)
        let recorder = RecordingNotifier(name: "rec")
        await recorder.failNext([.permanent("HTTP 400")])
        let report = try await delivery(store, recorder, sleeps: RecordedSleeps()).drain()
        #expect(report.deadLettered == [.init(id: "a-1", reason: "HTTP 400")])
        #expect(report.delivered == ["a-2", "a-3"])
        #expect(try await store.deadLetters().map(\.alert.id) == ["a-1"])
        #expect(await recorder.deliveredIDs == ["a-2", "a-3"])
    }

    @Test func persistentTransientFailureStopsTheDrainInOrder() async throws {
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "rec")
        try await store.append(contentsOf: (1...3).map { NotifierTestAlerts.alert(id: "a-\($0)") }, at: Self.t0)
        let recorder = RecordingNotifier(name: "rec")
        await recorder.failNext(Array(repeating: .transient("connection refused"), count: 5))
        let sleeps = RecordedSleeps()
        let drain = delivery(store, recorder, sleeps: sleeps)
        let first = try await drain.drain()
        #expect(first.delivered == [])
        #expect(first.stoppedAt == .init(id: "a-1", reason: "connection refused"))
        #expect(first.remaining == 3)
        #expect(first.attempts == 5)
        #expect(await recorder.attempts == 5, "a-2 and a-3 were not tried out of order")
        let second = try await drain.drain()
        #expect(second.delivered == ["a-1", "a-2", "a-3"])
    }

    @Test func retryAfterLongerThanACycleIsHonouredAcrossDrains() async throws {
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "rec")
        try await store.append(NotifierTestAlerts.alert(id: "a-1"), at: Self.t0)
        let recorder = RecordingNotifier(name: "rec")
        await recorder.failNext([.transient("HTTP 429", retryAfter: .seconds(600))])
        let clock = TestClock(start: Self.t0)
        let drain = delivery(store, recorder, sleeps: RecordedSleeps(), clock: clock)
        #expect(try await drain.drain().stoppedAt?.id == "a-1")
        clock.advance(by: 300)
        let early = try await drain.drain()
        #expect(early.waitingForRetryAfter && early.attempts == 0)
        clock.advance(by: 301)
        #expect(try await drain.drain().delivered == ["a-1"])
        #expect(await recorder.attempts == 2)
    }

    @Test func retryAfterIsRememberedByTheNextProcess() async throws {
        // Cron mode: every poll is a new process with a new store and a new delivery.
        let dir = TemporaryStateDirectory()
        let clock = TestClock(start: Self.t0)
        let first = try OutboxStore(stateDirectory: dir.path, notifier: "rec")
        try await first.append(NotifierTestAlerts.alert(id: "a-1"), at: Self.t0)
        let refusing = RecordingNotifier(name: "rec")
        await refusing.failNext([.transient("HTTP 429", retryAfter: .seconds(3600))])
        #expect(try await delivery(first, refusing, sleeps: RecordedSleeps(), clock: clock).drain().stoppedAt?.id == "a-1")
        #expect(DurableFile.permissions(of: "\(dir.path)/outbox/rec.status.json") == 0o600)
        for _ in 0..<11 {
            clock.advance(by: 300)
            let recorder = RecordingNotifier(name: "rec")
            let report = try await delivery(try OutboxStore(stateDirectory: dir.path, notifier: "rec"), recorder, sleeps: RecordedSleeps(), clock: clock).drain()
            #expect(report.waitingForRetryAfter && report.attempts == 0, "a poll within the hour does not knock")
            #expect(await recorder.attempts == 0)
        }
        clock.advance(by: 301)
        let recorder = RecordingNotifier(name: "rec")
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "rec")
        #expect(try await delivery(store, recorder, sleeps: RecordedSleeps(), clock: clock).drain().delivered == ["a-1"])
        #expect(await store.status == OutboxChannelStatus(), "the wait is forgotten once it has passed")
    }

    @Test func goneDisablesTheChannelAndKeepsEveryAlert() async throws {
        let dir = TemporaryStateDirectory()
        let clock = TestClock(start: Self.t0)
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "rec")
        try await store.append(contentsOf: [NotifierTestAlerts.alert(id: "a-1"), NotifierTestAlerts.alert(id: "a-2")], at: Self.t0)
        let recorder = RecordingNotifier(name: "rec")
        await recorder.failNext([.gone("HTTP 410 Gone")])
        let report = try await delivery(store, recorder, sleeps: RecordedSleeps(), clock: clock).drain()
        #expect(report.disabled == .init(reason: "HTTP 410 Gone", since: Self.t0))
        #expect(report.remaining == 2 && report.deadLettered.isEmpty)
        // Later processes send nothing while it is disabled.
        clock.advance(by: 86_400)
        let reopened = try OutboxStore(stateDirectory: dir.path, notifier: "rec")
        let later = try await delivery(reopened, recorder, sleeps: RecordedSleeps(), clock: clock).drain()
        #expect(later.disabled?.since == Self.t0 && later.attempts == 0)
        #expect(await recorder.attempts == 1)
        // Re-enabled by the operator: everything goes, in order, however long it waited.
        try await reopened.setStatus(OutboxChannelStatus())
        clock.advance(by: 10 * 86_400)
        #expect(try await delivery(reopened, recorder, sleeps: RecordedSleeps(), clock: clock).drain().delivered == ["a-1", "a-2"])
    }

    @Test func deadLettersCanBeRequeuedAndAreSentAgainOnce() async throws {
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "rec")
        try await store.append(contentsOf: (1...3).map { NotifierTestAlerts.alert(id: "a-\($0)") }, at: Self.t0)
        let recorder = RecordingNotifier(name: "rec")
        await recorder.failNext([.permanent("HTTP 400"), .permanent("HTTP 400")])
        let first = try await delivery(store, recorder, sleeps: RecordedSleeps()).drain()
        #expect(first.deadLettered.map(\.id) == ["a-1", "a-2"])
        let later = Self.t0.addingTimeInterval(5 * 86_400)
        #expect(try await store.requeueDeadLetters(ids: ["a-2"], at: later) == ["a-2"])
        #expect(try await store.deadLetters().map(\.alert.id) == ["a-1"])
        // The requeued alert has a fresh age, survives a reopen, and is not re-queued by a replay.
        let reopened = try OutboxStore(stateDirectory: dir.path, notifier: "rec")
        #expect(try await reopened.pendingEntries().map(\.alert.id) == ["a-2"])
        #expect(try await reopened.pendingEntries().first?.appendedAt == later)
        #expect(try await reopened.append(NotifierTestAlerts.alert(id: "a-2"), at: later) == false)
        let clock = TestClock(start: later)
        #expect(try await delivery(reopened, recorder, sleeps: RecordedSleeps(), clock: clock).drain().delivered == ["a-2"])
        #expect(await recorder.deliveredIDs == ["a-3", "a-2"])
        #expect(try await reopened.requeueDeadLetters(ids: ["nope"], at: later) == [])
    }

    @Test func tooOldTransientFailureIsDeadLettered() async throws {
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "rec")
        try await store.append(NotifierTestAlerts.alert(id: "a-1"), at: Self.t0)
        let recorder = RecordingNotifier(name: "rec")
        await recorder.failNext([.transient("down")])
        let clock = TestClock(start: Self.t0.addingTimeInterval(4 * 86_400))
        let report = try await delivery(store, recorder, sleeps: RecordedSleeps(), clock: clock).drain()
        #expect(report.deadLettered == [.init(id: "a-1", reason: "still failing after 4 days in the outbox: down")])
    }

    @Test func receiverDownThenUpGetsEverythingInOrderOncePerID() async throws {
        let up = ReceiverSwitch()
        let (receiver, received) = inProcessReceiver { request, _ in
            guard up.isUp else { return .text(503, "down for maintenance") }
            let ok = StandardWebhookSignature.verify(header: request.header("webhook-signature") ?? "", id: request.header("webhook-id") ?? "",
                                                     timestamp: Int64(request.header("webhook-timestamp") ?? "") ?? 0,
                                                     body: Array(request.body), secret: testSecret)
            return ok ? .empty(204) : .text(401, "bad signature")
        }
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        let ids = (1...6).map { "alert-\($0)" }
        try await store.append(contentsOf: ids.map { NotifierTestAlerts.alert(id: $0) }, at: Self.t0)
        let sleeps = RecordedSleeps()
        let drain = delivery(store, try webhook(receiver), sleeps: sleeps)

        // Down for several cycles: nothing is lost, nothing skips ahead.
        for _ in 0..<3 {
            let report = try await drain.drain()
            #expect(report.delivered.isEmpty && report.stoppedAt?.id == "alert-1" && report.remaining == 6)
        }
        #expect(Set(await received.requests.compactMap { $0.header("webhook-id") }) == ["alert-1"])

        up.set(true)
        let report = try await drain.drain()
        #expect(report.delivered == ids)
        #expect(report.remaining == 0)
        let accepted = await received.requests.suffix(6).compactMap { $0.header("webhook-id") }
        #expect(accepted == ids, "every alert once, in order, after recovery")
        #expect(try await drain.drain().attempts == 0, "nothing is sent twice")
    }

    @Test func rateLimitStormIsSurvived() async throws {
        let (receiver, received) = inProcessReceiver { _, n in
            n <= 3 ? .text(429, "slow down", headers: [("Retry-After", "2")]) : .empty(200)
        }
        let dir = TemporaryStateDirectory()
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "hook")
        try await store.append(contentsOf: [NotifierTestAlerts.alert(id: "a-1"), NotifierTestAlerts.alert(id: "a-2")], at: Self.t0)
        let sleeps = RecordedSleeps()
        let report = try await delivery(store, try webhook(receiver), sleeps: sleeps).drain()
        #expect(report.delivered == ["a-1", "a-2"])
        #expect(sleeps.sleeps == [.seconds(2), .seconds(2), .seconds(2)])
        #expect(await received.requests.map { $0.header("webhook-id") } == ["a-1", "a-1", "a-1", "a-1", "a-2"])
    }

    @Test func crashAndRestartNeitherDuplicatesNorLoses() async throws {
        let dir = TemporaryStateDirectory()
        let alerts = (1...4).map { NotifierTestAlerts.alert(id: "a-\($0)") }

        // First life: alerts appended, two delivered, then the receiver dies and so does the process.
        let firstRecorder = RecordingNotifier(name: "rec")
        do {
            let store = try OutboxStore(stateDirectory: dir.path, notifier: "rec")
            try await store.append(contentsOf: alerts, at: Self.t0)
            let drainer = delivery(store, FailAfter(firstRecorder, successes: 2), sleeps: RecordedSleeps(), policy: .init(maxAttemptsPerCycle: 1))
            let report = try await drainer.drain()
            #expect(report.delivered == ["a-1", "a-2"])
        }
        // Second life: a fresh store on the same directory; the replayed poll appends the same alerts.
        let store = try OutboxStore(stateDirectory: dir.path, notifier: "rec")
        #expect(try await store.append(contentsOf: alerts, at: Self.t0) == 0)
        let secondRecorder = RecordingNotifier(name: "rec")
        let report = try await delivery(store, secondRecorder, sleeps: RecordedSleeps()).drain()
        #expect(report.delivered == ["a-3", "a-4"])
        #expect(await firstRecorder.deliveredIDs + secondRecorder.deliveredIDs == ["a-1", "a-2", "a-3", "a-4"])
    }
}

/// Delivers through `inner` for the first `successes` calls, then fails as if the receiver died.
actor FailAfter: Notifier {
    nonisolated let name = "rec"
    let inner: RecordingNotifier
    var remaining: Int
    init(_ inner: RecordingNotifier, successes: Int) {
        self.inner = inner
        self.remaining = successes
    }
    func deliver(_ alert: Alert) async throws {
        guard remaining > 0 else { throw NotifierError.transient("receiver died") }
        remaining -= 1
        try await inner.deliver(alert)
    }
}
