import Foundation
import TophhieSystem
import TophhieAuth
import TophhieJSON
import TophhieRules

/// What one poll did, for the log line and the tests.
public struct PollReport: Sendable {
    public var outcome: PollOutcome
    public var plan: PollPlan
    public var fetched: Int = 0
    /// Events the engine had not seen before.
    public var newEvents: Int = 0
    /// Events that could not be read, first met in this poll (logged and told once).
    public var skipped: [MalformedSignIn] = []
    /// Unreadable events met again (already reported by an earlier poll).
    public var skippedAgain: Int = 0
    public var alerts: [Alert] = []
    /// Sign-ins the sweep found published after the lookback had passed them.
    public var lateArrivals: LateArrivals?
    public var notices: [Alert] = []
    public var delivery: [DeliveryReport] = []
    /// The version read: v1.0 after beta was refused.
    public var api: SignInLogAPI = .v1
    /// Sign-in log pages requested.
    public var requests: Int = 0
    /// Sign-ins decoded: those not recognised as processed before from their bytes.
    public var decoded = 0
    /// The first few of them, as "id time stream", for a test's message: the report outlives
    /// the poll's sign-ins, which a first poll holds tens of thousands of.
    public var decodedExamples: [String] = []
    /// Of those, how many have coordinates no place has (the rules take the place as unknown).
    public var coordinatesOutOfRange = 0
    /// Of those, how many have no known location in some attribute (no country, or no
    /// coordinates a place has: `TophhieSignInEvent.locationUnknown`).
    public var unknownLocations = 0
    /// While the place rules still learn: "place rules learning until …" (`RuleSet.placeLearning`).
    public var placeLearning: String?

    /// One line for the agent's log; never a token, never raw event text.
    public var summary: String {
        var parts: [String] = []
        switch outcome {
        case .succeeded:
            parts.append("\(plan.learning ? "learned from" : plan.sweep ? "swept" : "read") \(fetched) sign-in\(fetched == 1 ? "" : "s") since \(GraphTimestamp.filterText(plan.lowerBound)) (\(newEvents) new)")
        case .failed(let kind, let detail, _):
            parts.append("poll failed (\(kind.rawValue)): \(detail)")
        }
        if !skipped.isEmpty || skippedAgain > 0 { parts.append("\(skipped.count + skippedAgain) unreadable skipped\(skippedAgain > 0 ? " (\(skippedAgain) reported before)" : "")") }
        if let late = lateArrivals { parts.append("\(late.evaluated + late.unreachable) published late") }
        if coordinatesOutOfRange > 0 { parts.append("\(coordinatesOutOfRange) with coordinates out of range (place unknown)") }
        if let placeLearning { parts.append(placeLearning) }
        if unknownLocations > 0 { parts.append(TophhieSignInEvent.unknownLocationsText(unknownLocations)) }
        parts.append("\(alerts.count) alert\(alerts.count == 1 ? "" : "s")")
        if !notices.isEmpty { parts.append("\(notices.count) notice\(notices.count == 1 ? "" : "s")") }
        for report in delivery {
            guard let disabled = report.disabled else { continue }
            parts.append("\(report.notifier): disabled by its receiver since \(GraphTimestamp.alertText(disabled.since)), \(report.pending) pending")
        }
        for report in delivery where report.disabled == nil && report.delivered + report.pending + report.failed > 0 {
            // A notifier that is failing says why, so an operator reading the log is not left guessing.
            let why = (report.pending > 0 || report.failed > 0) ? report.lastError.map { " (\($0))" } ?? (report.budgetSpent ? " (this cycle's delivery time was spent; the rest goes next cycle)" : "") : ""
            let pending = report.pending > 0 ? (report.isDrainingBacklog ? ", backlog of \(report.pending) pending" : ", \(report.pending) pending") : ""
            parts.append("\(report.notifier): \(report.delivered) delivered\(pending)\(report.failed > 0 ? ", \(report.failed) failed" : "")\(why)")
        }
        return parts.joined(separator: "; ")
    }

    /// Whether the cycle did its job: the sign-in log was read and every channel delivered all
    /// it held, or made progress on a backlog within its budget with no failure. A poll exits
    /// 0 on this, 1 when a channel failed or nothing could be delivered.
    public var wentWell: Bool {
        guard case .succeeded = outcome else { return false }
        return delivery.allSatisfy(\.deliveredWell)
    }
}

/// How delivery went for one notifier in one cycle.
public struct DeliveryReport: Sendable, Equatable {
    public var notifier: String
    public var delivered: Int
    /// Still in the outbox after a transient failure; retried next cycle.
    public var pending: Int
    /// Permanent failures, moved aside and reported.
    public var failed: Int
    public var lastError: String?
    /// Set while the receiver has disabled this notifier (HTTP 410).
    public var disabled: OutboxChannelStatus.Disabled?
    /// Since when the channel has not delivered what it holds.
    public var failingSince: Date?
    /// When the failing spell this cycle ended began.
    public var recoveredFrom: Date?
    /// The alerts this cycle gave up on, with why.
    public var deadLettered: [OutboxDrainReport.Failure] = []
    /// Delivery stopped at the cycle's time budget; the rest goes next cycle.
    public var budgetSpent = false

    /// A backlog drained as far as the budget allowed: alerts delivered, more waiting, no failure.
    public var isDrainingBacklog: Bool {
        budgetSpent && delivered > 0 && pending > 0 && lastError == nil && disabled == nil && failed == 0
    }

    /// Whether the channel did its job this cycle: everything delivered, or a backlog drained as
    /// far as the budget allowed. A failure, a give-up, a disabled channel, a `Retry-After`
    /// still to pass or alerts waiting with none delivered is not.
    public var deliveredWell: Bool {
        disabled == nil && failed == 0 && (pending == 0 || isDrainingBacklog)
    }

    /// Whether the channel has delivered nothing for at least `bound` at `now`.
    public func hasFailed(for bound: TimeInterval, at now: Date) -> Bool {
        failingSince.map { now.timeIntervalSince($0) >= bound } ?? false
    }

    public init(notifier: String, delivered: Int, pending: Int, failed: Int, lastError: String? = nil, disabled: OutboxChannelStatus.Disabled? = nil) {
        self.notifier = notifier
        self.delivered = delivered
        self.pending = pending
        self.failed = failed
        self.lastError = lastError
        self.disabled = disabled
    }
}

/// Where alerts go after the engine: appended durably before the state commits, delivered after.
public protocol AlertDispatch: Sendable {
    /// Appends alerts to every notifier's outbox but those `excluding` names, and fsyncs; ids
    /// already there are dropped.
    /// - Returns: how many entries were added, over all outboxes.
    @discardableResult
    func append(_ alerts: [Alert], excluding: Set<String>) async throws -> Int
    /// Sends what is pending, in order, and marks what was delivered, each channel for at
    /// most `budget` seconds (nil: the configured budget).
    func deliverPending(budget: TimeInterval?) async -> [DeliveryReport]
    /// What opening the outboxes had to repair, one sentence each; told in a notice.
    var recoveryNotes: [String] { get }
    /// Sends alerts straight to every notifier that takes them, once each, not through the
    /// outbox (which cannot be written): for a storage fault.
    /// - Returns: one line per notifier that could not be reached, for the log.
    func deliverDirectly(_ alerts: [Alert]) async -> [String]
}

extension AlertDispatch {
    /// Appends alerts to every notifier's outbox (`append(_:excluding:)` with none left out).
    @discardableResult
    public func append(_ alerts: [Alert]) async throws -> Int { try await append(alerts, excluding: []) }

    public var recoveryNotes: [String] { [] }

    /// Sends what is pending within the configured budget.
    public func deliverPending() async -> [DeliveryReport] { await deliverPending(budget: nil) }
}

/// One poll: load state → fetch the window → engine → outbox (fsync) → commit state → deliver.
///
/// Alert ids come from the rule, the group and the events, so a crash between the outbox append
/// and the state commit repeats the same ids next time and the outbox drops the copies.
public struct PollCycle: Sendable {
    public var auth: TophhieAuth
    public var engine: any RuleEvaluator
    public var store: StateStore
    public var planner: PollPlanner
    public var notices: NoticePolicy
    public var dispatch: any AlertDispatch
    /// How long a channel may deliver nothing before the other notifiers are told.
    public var channelFailingAfter: TimeInterval = PollCycle.defaultChannelFailingAfter
    /// The delivery time a cycle's notices about its own delivery get, after the budget.
    public static let noticeDeliveryBudget: TimeInterval = 5

    /// How long a sign-in stream may be unreadable before the notifiers are told (`stream-failing`).
    public var streamFailingAfter: TimeInterval = PollCycle.defaultStreamFailingAfter
    /// The warnings the rules loaded with, told once per change of them (`--quiet` hides the log
    /// line, not this): the notice's id comes from the warnings, so the outbox keeps one.
    public var ruleWarnings: [String] = []

    public init(auth: TophhieAuth, engine: any RuleEvaluator, store: StateStore, planner: PollPlanner, notices: NoticePolicy = NoticePolicy(), dispatch: any AlertDispatch) {
        self.auth = auth
        self.engine = engine
        self.store = store
        self.planner = planner
        self.notices = notices
        self.dispatch = dispatch
    }

    /// Runs one cycle at `now`.
    /// - Throws: state or outbox errors (disk); Graph and sign-in failures become notices instead.
    public func run(now: Date) async throws -> PollReport {
        let store = self.store
        // Removed under a running agent: the token cache and the outbox went with it, so it is
        // not recreated (a fresh state would re-learn and alert again on what was told).
        let directory = store.file.deletingLastPathComponent()
        if !(try await BlockingWork.shared.run { DurableFile.permissions(of: directory.path) != nil }) {
            throw await stateUnwritable(FileError(operation: "find", path: directory.path, code: FileError.noEntry), now: now)
        }
        let marker = runtimeDirectory.map { StateFaultMarker(runtimeDirectory: $0, stateDirectory: directory) }
        let faultTold = try await BlockingWork.shared.run { marker?.lastTold() }
        let repairs = repairNotices(now: now)
        var state: AgentState
        do {
            state = try await BlockingWork.shared.run { try store.load() }
        } catch let damage as ConfigurationError {
            throw try await stateDamaged(damage, repairs: repairs, now: now)
        }
        let stateBefore = state
        let plan = planner.plan(state, now: now)
        var report = PollReport(outcome: .succeeded, plan: plan)
        var outgoing: [Alert] = repairs
        if let faultTold {
            outgoing.append(SystemNotice.alert(.stateWritable, fingerprint: GraphTimestamp.graphText(faultTold), detail: "\(directory.path), after a fault last told at \(GraphTimestamp.alertText(faultTold)); polling goes on from where it stopped", since: faultTold, now: now))
        }
        if let notice = Self.ruleWarningsNotice(ruleWarnings, state: &state, now: now) { outgoing.append(notice) }
        // Told after the read: a host clock ahead of Graph's makes a gap where there is none.
        var gap = plan.gap
        // The engine's state, read only when there is something to process.
        var engineState: EngineState?
        do {
            // After `respond --revoke-sessions`, this agent's own sign-in is dead: its access
            // token may live an hour more, but monitoring is to say so now, not then.
            let stateDirectory = store.file.deletingLastPathComponent()
            if let revoked = try await BlockingWork.shared.run({ SessionRevocation.read(stateDirectory: stateDirectory) }) {
                if state.sessionsRevokedTold != revoked.at {
                    state.sessionsRevokedTold = revoked.at
                    let detail = "at \(GraphTimestamp.alertText(revoked.at))\(revoked.alertID.map { " after alert \($0)" } ?? "")"
                    outgoing.append(SystemNotice.alert(.sessionsRevoked, fingerprint: GraphTimestamp.graphText(revoked.at), detail: detail, since: revoked.at, now: now))
                }
                if let session = try await auth.currentSession(), session.signedInAt <= revoked.at {
                    throw TophhieAuthError.interactionRequired(reason: "every session of the account was revoked at \(GraphTimestamp.alertText(revoked.at)) ('tophhie-watch respond'), this agent's sign-in with them")
                }
            }
            let processed = state.processed ?? ProcessedSignIns()
            // Of each sign-in only what the rules read is held (a first poll may decode tens of
            // thousands); with a keyword search, every record whole.
            let keeping = SignInKeeping(paths: engine.eventPaths, digest: { JSONRuleEvent.revision(of: $0) })
            // The streams are independent: one throttled or failing is skipped until its time,
            // and the other's alerts still go out.
            if plan.reads.isEmpty || (plan.learning && !plan.waiting.isEmpty) {
                throw StreamsUnreadable(detail: StreamHealthPolicy.nothingRead(state, plan: plan, failures: []))
            }
            let fetch = try await auth.fetchSignIns(plan.reads, api: plan.api, recognizer: processed, keeping: keeping, streamWaitLimit: Self.streamWaitLimit)
            let events = fetch.kept
            var readPlan = plan
            readPlan.api = fetch.api
            let nothingRead = plan.learning || Set(fetch.streamFailures.map(\.stream) + plan.waiting).isSuperset(of: fetch.api.streams)
            // Kept either way (Graph's Retry-After, where each stream stopped); told only while
            // another stream is read: with none read, the standing problem's notice tells it.
            let streamNotices = StreamHealthPolicy.update(&state, plan: readPlan, failures: fetch.streamFailures, now: now, failingAfter: streamFailingAfter, tell: !nothingRead)
            if let failure = fetch.streamFailures.first, nothingRead {
                // Nothing was read (or a first poll could not learn every stream): the poll
                // fails as it always has.
                throw failure.error
            }
            report.api = fetch.api
            report.requests = fetch.pages
            report.decoded = events.count
            report.decodedExamples = events.prefix(3).map { "\($0.id) \($0.createdDateTime) \($0.stream)" }
            report.coordinatesOutOfRange = events.count(where: \.coordinatesOutOfRange)
            report.unknownLocations = events.count(where: \.locationUnknown)
            // With the host clock ahead of Graph's, or more than the tolerance behind it, the poll
            // is made at Graph's time: the engine's windows, the alerts' times and the next
            // poll's reads are placed by it, so no sign-in falls between and none waits.
            let at = fetch.graphDate.map { graph in now.timeIntervalSince(graph) < -Self.clockTolerance ? graph : min(now, graph) } ?? now
            report.fetched = fetch.count
            let unreadable = Self.newlyUnreadable(fetch.skipped, state: &state, now: now)
            report.skipped = unreadable
            report.skippedAgain = fetch.skipped.count - unreadable.count
            if !unreadable.isEmpty {
                outgoing.append(Self.unreadableNotice(unreadable, now: now))
            }
            // Sign-ins recognised from their bytes are ones the engine would skip: with nothing
            // else, it has nothing to do and its state stays as it is, unread.
            if !events.isEmpty || plan.learning {
                var before: EngineState
                let loaded = state
                do { before = try await BlockingWork.shared.run { try store.loadEngine(of: loaded) } } catch let damage as ConfigurationError {
                    throw try await stateDamaged(damage, repairs: repairs, now: now)
                }
                if let last = stateBefore.lastSuccessfulPoll, let ran = before.lastProcessed, ran < last {
                    // The polls since the engine last ran had nothing new and left its state
                    // alone; it forgets now what the last of them would have (windows that
                    // closed, ids past memory), so a late sign-in meets the windows it would have.
                    before = engine.evaluate(before, events: [], now: last, alertOnlyAfter: nil).state
                }
                let outcome = engine.evaluate(before, events: events, now: at, alertOnlyAfter: plan.alertOnlyAfter)
                report.newEvents = events.count { before.hasSeen($0.id) == false }
                engineState = outcome.state
                let learning = engine.rules.placeLearningPeriod(in: outcome.state, now: at)
                report.placeLearning = learning?.text
                state.placeLearning = report.placeLearning
                state.placeLearningPeriod = learning.map { DateInterval(start: min($0.since, $0.until), end: $0.until) }
                report.alerts = outcome.alerts
                Self.rememberHighAlerts(outcome.alerts, state: &state)
                if let late = outcome.lateArrivals {
                    // Told once: the ids are remembered now, so the next sweep does not find them again.
                    report.lateArrivals = late
                    outgoing.append(SystemNotice.alert(.lateArrivals, fingerprint: "\(late.evaluated)|\(late.unreachable)|\(GraphTimestamp.graphText(late.earliest))|\(GraphTimestamp.graphText(late.latest))",
                                                       detail: late.sentence(lookback: engine.settings.lookback), since: late.earliest, now: now))
                }
            }
            let revisions = Dictionary(events.map { ($0.id, $0.revision) }, uniquingKeysWith: { first, _ in first })
            // Forgotten once the next poll's window no longer reaches back to them; the daily
            // sweep decodes older ones again, as it did before.
            state.processed = processed.recording(fetch.records, processed: { record in
                guard let engineState, let revision = revisions[record.id] ?? nil else { return false }
                return engineState.hasProcessed(record.id, revision: revision)
            }, after: at.addingTimeInterval(-planner.lookback - ProcessedSignIns.margin))
            planner.advance(&state, plan: plan, results: fetch.reads, now: at)
            outgoing += Self.fallbackNotices(fetch, state: &state, now: now)
            outgoing += Self.clockNotices(graphDate: fetch.graphDate, state: &state, now: now)
            if at < now.addingTimeInterval(-Self.clockTolerance) { gap = planner.plan(stateBefore, now: at).gap }
            state.lastSuccessfulPoll = at
            state.learned = true
            if let newest = fetch.records.map(\.createdDateTime).max() { state.newestEventTime = max(newest, state.newestEventTime ?? newest) }
            outgoing += report.alerts
            // After the alerts: a recovery says what the stream missed has been checked.
            outgoing += streamNotices
        } catch let unreadable as StreamsUnreadable {
            report.outcome = .failed(.unavailable, detail: unreadable.detail, confirmAfter: 1)
        } catch let error as TophhieAuthError {
            // A licence 403 is confirmed over three polls before monitoring is declared stopped.
            report.outcome = .failed(Self.problemKind(error), detail: error.localizedDescription, confirmAfter: error.accessGate == .licence ? 3 : 1)
        }
        if let gap {
            outgoing.insert(SystemNotice.alert(.coverageGap, problem: nil, gap: gap, anchor: gap.from, now: now), at: repairs.count)
            state.reportedGapEnd = gap.to
            state.coverageGaps = Array((state.coverageGaps + [gap]).suffix(AgentState.coverageGapLimit))
        }
        let remembered = state.problem
        let (problem, decided) = notices.decide(current: remembered, outcome: report.outcome, now: now)
        state.problem = problem
        // A new problem is anchored on the last good poll; the end of one on its committed start.
        // With no good poll yet (a first install, a state moved aside) the problem's own start is
        // the anchor: a fixed one would make every later notice of that kind a "duplicate" of the
        // first for as long as the outbox remembers it.
        let noticeAlerts = decided.map { kind, about in
            SystemNotice.alert(kind, problem: about, anchor: kind == .recovered ? remembered?.since : (remembered?.kind == about.kind ? remembered?.since : (stateBefore.lastSuccessfulPoll ?? about.since)), now: now,
                               resolves: kind == .recovered ? remembered?.noticeID : nil)
        }
        // The standing problem remembers its notice, so the recovery can name what it resolves.
        for ((kind, _), alert) in zip(decided, noticeAlerts) where kind != .recovered && state.problem != nil {
            state.problem?.noticeID = alert.id
        }
        report.notices = outgoing.filter { $0.kind == .notice } + noticeAlerts
        outgoing += noticeAlerts
        let queued = outgoing, dispatch = self.dispatch
        try await writing(now: now) { try await dispatch.append(queued) }
        let committed = state, committedEngine = engineState
        _ = try await writing(now: now) { try await BlockingWork.shared.run { try store.commit(committed, engine: committedEngine) } }
        if faultTold != nil { try? await BlockingWork.shared.run { marker?.remove() } }
        report.delivery = await dispatch.deliverPending()
        // A receiver that disabled its notifier is told through the others. Built from the
        // remembered status every cycle (the id names the notifier and when), so a crash
        // between disabling and queuing the notice still sends it, once.
        let disabled = report.delivery.compactMap { delivery in
            delivery.disabled.map { (SystemNotice.alert(.endpointDisabled, fingerprint: "\(delivery.notifier)|\(GraphTimestamp.graphText($0.since))", detail: "\(delivery.notifier): \($0.reason)", since: $0.since, now: now), Set<String>()) }
        } + Self.channelNotices(report.delivery, failingAfter: channelFailingAfter, now: now)
        // A channel's own failing is told on the others only: queued behind its own backlog, it
        // would arrive when it no longer matters.
        var added: [Alert] = []
        for (notice, excluding) in disabled where try await writing(now: now, { try await dispatch.append([notice], excluding: excluding) }) > 0 { added.append(notice) }
        if !added.isEmpty {
            report.notices += added
            // The notices about this cycle's delivery get a short budget of their own: a poll
            // spends at most the delivery budget plus this on delivery.
            let again = await dispatch.deliverPending(budget: Self.noticeDeliveryBudget)
            report.delivery = zip(report.delivery, again).map { first, second in
                var merged = second
                merged.delivered += first.delivered
                merged.failed += first.failed
                merged.budgetSpent = merged.budgetSpent || first.budgetSpent
                merged.lastError = merged.lastError ?? first.lastError
                return merged
            }
        }
        return report
    }

    /// Says through the notifiers (they do not need the state) that monitoring cannot go on, and
    /// gives the error to throw: nobody may be reading this process's log. The id comes from the
    /// damaged bytes, so a daemon meeting the same file every cycle sends one notice and a file
    /// damaged anew sends another.
    private func stateDamaged(_ damage: ConfigurationError, repairs: [Alert], now: Date) async throws -> ConfigurationError {
        let store = self.store
        let fingerprint = (try? await BlockingWork.shared.run { store.fingerprint() }) ?? "unknown"
        let notice = SystemNotice.alert(.stateDamaged, fingerprint: fingerprint, detail: "\(damage)", since: now, now: now)
        try await dispatch.append(repairs + [notice])
        _ = await dispatch.deliverPending()
        return damage
    }

    /// Runs a write to the state directory; a storage fault (full, read-only, not permitted,
    /// removed) is told and thrown as `StateUnwritable`.
    private func writing<T>(now: Date, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            guard let fault = StateUnwritable.fault(in: error) else { throw error }
            throw await stateUnwritable(fault, now: now)
        }
    }

    /// Tells a storage fault straight to the notifiers (the outbox cannot be written), on every
    /// poll, or at most hourly when the runtime directory can keep a marker; gives the error.
    private func stateUnwritable(_ fault: FileError, now: Date) async -> StateUnwritable {
        let directory = store.file.deletingLastPathComponent()
        let gone = (try? await BlockingWork.shared.run { DurableFile.permissions(of: directory.path) == nil }) ?? false
        let error = StateUnwritable(fault: fault, stateDirectory: directory.path, directoryGone: gone)
        let marker = runtimeDirectory.map { StateFaultMarker(runtimeDirectory: $0, stateDirectory: directory) }
        let told = try? await BlockingWork.shared.run { marker?.lastTold() }
        if let last = told, now.timeIntervalSince(last) < StateFaultMarker.repeatEvery, now >= last { return error }
        let notice = SystemNotice.alert(.stateUnwritable, fingerprint: "\(fault)|\(GraphTimestamp.graphText(now))", detail: error.description, since: now, now: now)
        _ = await dispatch.deliverDirectly([notice])
        // When it was told: the next hour's polls stay quiet, and the poll that writes again says so.
        try? await BlockingWork.shared.run { try marker?.record(now) }
        return error
    }

    /// A notice for what opening the outboxes repaired; none when nothing was.
    private func repairNotices(now: Date) -> [Alert] {
        let notes = dispatch.recoveryNotes
        guard !notes.isEmpty else { return [] }
        let shown = notes.prefix(5).joined(separator: "; ") + (notes.count > 5 ? "; and \(notes.count - 5) more (see the log)" : "")
        return [SystemNotice.alert(.outboxRepaired, fingerprint: notes.joined(separator: "\n"), detail: shown, since: now, now: now)]
    }

    /// The skipped events not reported before; each is remembered until it leaves retention, so
    /// an event re-read by every poll's lookback is logged and told once.
    static func newlyUnreadable(_ skipped: [MalformedSignIn], state: inout AgentState, now: Date) -> [MalformedSignIn] {
        var reported = state.reportedUnreadable ?? [:]
        let horizon = now.addingTimeInterval(-AgentState.unreadableMemory)
        reported = reported.filter { $0.value >= horizon }
        var fresh: [MalformedSignIn] = []
        for event in skipped where reported[event.reportKey] == nil {
            reported[event.reportKey] = now
            fresh.append(event)
        }
        state.reportedUnreadable = reported.isEmpty ? nil : reported
        return fresh
    }

    /// Keeps the newest high and critical detections for `respond` to list.
    static func rememberHighAlerts(_ alerts: [Alert], state: inout AgentState) {
        let high = alerts.filter { $0.kind == .detection && ($0.level == .high || $0.level == .critical) }
        guard !high.isEmpty else { return }
        let recent = high.map { RecentAlert(id: $0.id, rule: $0.rule.id, title: $0.rule.title, summary: $0.sentence, detectedAt: $0.detectedAt) }
        state.recentHighAlerts = Array((state.recentHighAlerts + recent).suffix(AgentState.recentHighAlertLimit))
    }

    /// One notice for a rule set's warnings when they differ from those last told, named by
    /// them (a crash before the state commits rebuilds the same id, and the outbox keeps one).
    static func ruleWarningsNotice(_ warnings: [String], state: inout AgentState, now: Date) -> Alert? {
        let sorted = warnings.sorted()
        let told = sorted.isEmpty ? nil : StableHash.fnv1a128(sorted.joined(separator: "\n"))
        guard told != state.ruleWarningsTold else { return nil }
        state.ruleWarningsTold = told
        guard !sorted.isEmpty else { return nil }
        let shown = sorted.prefix(10).joined(separator: "; ")
        let detail = "\(sorted.count) warning\(sorted.count == 1 ? "" : "s"): \(shown)\(sorted.count > 10 ? "; and \(sorted.count - 10) more" : "")"
        return SystemNotice.alert(.rulesWarnings, fingerprint: sorted.joined(separator: "\n"), detail: detail, since: now, now: now)
    }

    static func unreadableNotice(_ events: [MalformedSignIn], now: Date) -> Alert {
        let keys = events.map(\.reportKey).sorted()
        let shown = events.prefix(10).map(\.description).joined(separator: "; ")
        let detail = "\(events.count) event\(events.count == 1 ? "" : "s"): \(shown)\(events.count > 10 ? "; and \(events.count - 10) more (see the log)" : "")"
        return SystemNotice.alert(.unreadableSignIns, fingerprint: keys.joined(separator: "\n"), detail: detail, since: now, now: now)
    }

    /// One notice when Graph first refuses beta (what is no longer watched), and one when beta
    /// answers again; the state remembers the refusal so polls between say nothing.
    static func fallbackNotices(_ fetch: SignInFetch, state: inout AgentState, now: Date) -> [Alert] {
        if let refusal = fetch.fallback {
            let since = state.fallback?.since ?? now
            let told = state.fallback != nil
            state.fallback = StreamFallback(since: since, lastTried: now, refusal: refusal)
            guard !told else { return [] }
            return [SystemNotice.alert(.streamsNarrowed, fingerprint: GraphTimestamp.graphText(since), detail: refusal.reason, since: since, now: now)]
        }
        guard fetch.api == .beta, let ended = state.fallback else { return [] }
        state.fallback = nil
        return [SystemNotice.alert(.streamsRestored, fingerprint: GraphTimestamp.graphText(ended.since), detail: ended.refusal.reason, since: ended.since, now: now)]
    }

    /// How long a channel may fail before the others are told, unless configured.
    public static let defaultChannelFailingAfter: TimeInterval = 3600
    /// The runtime directory (`$XDG_RUNTIME_DIR`), where a storage fault's marker is kept so it
    /// is told at most hourly; nil tells it every poll.
    public var runtimeDirectory: URL?

    /// How long a sign-in stream may be throttled or failing before it is told, unless configured.
    public static let defaultStreamFailingAfter: TimeInterval = 900
    /// The longest `Retry-After` a poll waits for one stream; a longer one skips that stream
    /// until the time, kept in the state, and the other stream's alerts go out meanwhile.
    public static let streamWaitLimit: Double = 30

    /// Notices about channels: one when a channel has failed for `failingAfter` (its id
    /// names the channel and the spell, so each cycle rebuilds it and the outbox keeps one), one
    /// when such a spell ends, and one for each cycle's alerts given up on.
    /// - Returns: each notice with the notifiers it is not for.
    static func channelNotices(_ deliveries: [DeliveryReport], failingAfter: TimeInterval, now: Date) -> [(Alert, Set<String>)] {
        var notices: [(Alert, Set<String>)] = []
        for delivery in deliveries {
            let name = delivery.notifier
            if let since = delivery.failingSince, delivery.hasFailed(for: failingAfter, at: now) {
                let detail = "\(name): nothing delivered since \(GraphTimestamp.alertText(since)), \(delivery.pending) alert\(delivery.pending == 1 ? "" : "s") waiting\(delivery.lastError.map { " (\($0))" } ?? "")"
                notices.append((SystemNotice.alert(.channelFailing, fingerprint: "\(name)|\(GraphTimestamp.graphText(since))", detail: detail, since: since, now: now), [name]))
            }
            if let from = delivery.recoveredFrom, now.timeIntervalSince(from) >= failingAfter {
                notices.append((SystemNotice.alert(.channelRecovered, fingerprint: "\(name)|\(GraphTimestamp.graphText(from))|recovered", detail: "\(name): delivering again after failing since \(GraphTimestamp.alertText(from))", since: from, now: now), []))
            }
            if !delivery.deadLettered.isEmpty {
                let reason = delivery.deadLettered.last?.reason ?? ""
                let count = delivery.deadLettered.count
                let detail = "\(count) alert\(count == 1 ? "" : "s") for \(name) given up on (\(reason)); they are kept in outbox/\(name).dead.jsonl: 'tophhie-watch outbox retry --notifier \(name)' queues them again"
                notices.append((SystemNotice.alert(.deadLettered, fingerprint: "\(name)|" + delivery.deadLettered.map(\.id).joined(separator: ","), detail: detail, since: now, now: now), []))
            }
        }
        return notices
    }

    /// How far the host clock may be from Graph's before it is told: Standard Webhooks
    /// receivers refuse a signature more than 5 minutes off.
    static let clockTolerance: TimeInterval = 300

    /// One notice when the host clock is more than `clockTolerance` from Graph's `Date`, and
    /// the state forgets it once the two agree again (a later skew is told again).
    static func clockNotices(graphDate: Date?, state: inout AgentState, now: Date) -> [Alert] {
        guard let graphDate else { return [] }
        let skew = now.timeIntervalSince(graphDate)
        guard abs(skew) > clockTolerance else {
            state.clockSkewSince = nil
            return []
        }
        guard state.clockSkewSince == nil else { return [] }
        state.clockSkewSince = graphDate
        let minutes = Int((abs(skew) / 60).rounded())
        let amount = minutes >= 120 ? "\(minutes / 60) h \(minutes % 60) min" : "\(minutes) min"
        let detail = "the host clock is \(amount) \(skew > 0 ? "ahead of" : "behind") Microsoft Graph's (\(GraphTimestamp.alertText(now)) here, \(GraphTimestamp.alertText(graphDate)) at Graph)"
        return [SystemNotice.alert(.clockSkew, fingerprint: GraphTimestamp.graphText(graphDate), detail: detail, since: graphDate, now: now)]
    }

    /// Which standing problem an error is.
    static func problemKind(_ error: TophhieAuthError) -> AgentProblem.Kind {
        if error.needsSignIn { return .signInNeeded }
        return error.accessGate == nil ? .unavailable : .accessDenied
    }
}
