import Foundation
import TophhieAuth
import TophhieJSON
import TophhieRules

/// The daemon: a poll cycle every interval (plus jitter) until asked to stop.
///
/// `stop()` lets the current cycle finish, then `run()` returns; `reload()` rebuilds the setup
/// before the next cycle and keeps the old one if the new configuration or rules are broken.
public actor AgentLoop: Service {
    private var setup: AgentSetup
    private let rebuild: @Sendable () throws -> AgentSetup
    private let clock: any TophhieClock
    private let log: @Sendable (String) -> Void
    private let random: @Sendable () -> Double
    private let onReport: (@Sendable (PollReport) -> Void)?
    private var stopping = false
    private var reloadRequested = false
    private var sleeper: Task<Void, any Error>?
    /// Cycles in a row that could not write the state directory; the wait grows with them.
    private var unwritableCycles = 0
    /// When a refused reload was first told, until a reload succeeds.
    private var reloadRefused: Date?
    /// The state directory was removed: the loop stops and `run()` throws this.
    private var stoppedBy: StateUnwritable?
    /// Cycles completed, for tests and the demo.
    public private(set) var cycles = 0
    /// Reports of every cycle, newest last (bounded).
    public private(set) var reports: [PollReport] = []

    /// - Parameters:
    ///   - rebuild: builds a fresh setup from the configuration on disk (SIGHUP).
    ///   - log: receives one line per event worth a log entry.
    ///   - onReport: receives each cycle's report (the demo narrates from it).
    public init(setup: AgentSetup, rebuild: @escaping @Sendable () throws -> AgentSetup, clock: any TophhieClock, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, log: @escaping @Sendable (String) -> Void, onReport: (@Sendable (PollReport) -> Void)? = nil) {
        self.setup = setup
        self.onReport = onReport
        self.rebuild = rebuild
        self.clock = clock
        self.random = random
        self.log = log
    }

    /// Polls until `stop()` or cancellation.
    /// - Parameter maxCycles: stop after this many cycles (the demo); nil runs on.
    public func run(maxCycles: Int? = nil) async throws {
        while !stopping && !Task.isCancelled {
            if reloadRequested { await applyReload() }
            await cycle()
            if let maxCycles, cycles >= maxCycles { break }
            if stopping || Task.isCancelled { break }
            if stoppedBy != nil { break }
            let schedule = PollSchedule(interval: setup.configuration.pollInterval, jitter: setup.configuration.pollJitter)
            let wait = Self.backoff(schedule.delay(random: random()), unwritableCycles: unwritableCycles)
            let clock = self.clock
            let task = Task { try await clock.sleep(seconds: wait) }
            sleeper = task
            // The wait is its own task so stop() and reload() can cut it short; cancelling run()
            // cuts it short too.
            await withTaskCancellationHandler {
                _ = try? await task.value
            } onCancel: {
                task.cancel()
            }
            sleeper = nil
        }
        log("stopped after \(cycles) cycle\(cycles == 1 ? "" : "s")")
        if let stoppedBy { throw stoppedBy }
    }

    /// The wait before the next cycle: the interval, doubled for each cycle in a row that could
    /// not write the state directory (up to 30 minutes, never less than the interval).
    static func backoff(_ wait: Double, unwritableCycles: Int) -> Double {
        guard unwritableCycles > 1 else { return wait }
        return max(wait, min(wait * pow(2, Double(min(unwritableCycles - 1, 10))), 1800))
    }

    /// Runs one cycle and logs it; disk errors are logged and retried next time.
    private func cycle() async {
        let now = clock.now()
        do {
            let report = try await setup.cycle.run(now: now)
            cycles += 1
            reports.append(report)
            if reports.count > 100 { reports.removeFirst(reports.count - 100) }
            if unwritableCycles > 0 {
                log("the state directory can be written again after \(unwritableCycles) cycle\(unwritableCycles == 1 ? "" : "s") that could not")
                unwritableCycles = 0
            }
            if let onReport { onReport(report) } else { log(report.summary) }
            for skipped in report.skipped { log(skipped.description) }
            for problem in await setup.health.record(report, at: clock.now()) { log(problem) }
        } catch let unwritable as StateUnwritable {
            cycles += 1
            if unwritable.directoryGone {
                log("stopping: \(unwritable)")
                stoppedBy = unwritable
            } else {
                unwritableCycles += 1
                let next = Self.backoff(setup.configuration.pollInterval, unwritableCycles: unwritableCycles)
                log("poll failed: \(unwritable); retrying in \(DurationText.text(next))")
            }
            for problem in await setup.health.record(nil, at: clock.now()) { log(problem) }
        } catch {
            cycles += 1
            log("poll failed: \(error)")
            for problem in await setup.health.record(nil, at: clock.now()) { log(problem) }
        }
    }

    /// Polls until `stop()` or cancellation.
    public func run() async throws {
        try await run(maxCycles: nil)
    }

    /// SIGTERM: finish the current cycle, then return from `run()`.
    public func shutdownGracefully() {
        stop()
    }

    /// Finish the current cycle, then return from `run()`.
    public func stop() {
        stopping = true
        sleeper?.cancel()
    }

    /// Re-read configuration and rules before the next cycle.
    public func reload() {
        reloadRequested = true
        sleeper?.cancel()
    }

    /// Rebuilds the setup. A refused reload is told through the notifiers once (`rules-reload-failed`,
    /// naming where the error is and how many rules still run), and the next reload that
    /// succeeds is told too (`rules-reloaded`): whoever sent SIGHUP may not read this log.
    private func applyReload() async {
        reloadRequested = false
        let now = clock.now()
        do {
            setup = try rebuild()
            log("reloaded configuration and \(setup.rules.ruleCount) rules")
            if let refused = reloadRefused {
                reloadRefused = nil
                await tell(SystemNotice.alert(.rulesReloaded, fingerprint: "\(refused)|reloaded|\(GraphTimestamp.graphText(now))", detail: "now running \(setup.rules.ruleCount) rule\(setup.rules.ruleCount == 1 ? "" : "s") (the reload refused at \(GraphTimestamp.alertText(refused)) is fixed)", since: refused, now: now))
            }
        } catch {
            log("reload failed, keeping the previous configuration and rules: \(error)")
            let text = "\(error)".replacingOccurrences(of: "\n  ", with: "; ").replacingOccurrences(of: "\n", with: "; ")
            let count = setup.rules.ruleCount
            reloadRefused = reloadRefused ?? now
            await tell(SystemNotice.alert(.rulesReloadFailed, fingerprint: text, detail: "\(text); still running the previous \(count) rule\(count == 1 ? "" : "s")", since: now, now: now))
        }
    }

    /// Queues a notice in the outbox and delivers it now, not at the end of the next cycle.
    private func tell(_ notice: Alert) async {
        do {
            try await setup.cycle.dispatch.append([notice])
            _ = await setup.cycle.dispatch.deliverPending(budget: PollCycle.noticeDeliveryBudget)
        } catch {
            log("could not queue the notice '\(notice.rule.title)': \(error)")
        }
    }
}
