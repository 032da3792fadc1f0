import Foundation
import TophhieAuth
import TophhieJSON
import TophhieRules

/// The daemon: a poll cycle every interval (plus jitter) until asked to stop.
///
/// `stop()` lets the current cycle finish, then `run()` returns; `reload()` rebuilds the setup
/// before the next cycle and keeps the old one if the new configuration or rules are broken.
public actor AgentLoop: Service {
    private var accounts: WatchedAccounts
    private let rebuild: @Sendable () throws -> WatchedAccounts
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
        self.init(accounts: WatchedAccounts(setup: setup), rebuild: { WatchedAccounts(setup: try rebuild()) }, clock: clock, random: random, log: log, onReport: onReport)
    }

    /// Polls every account of `accounts` each cycle.
    /// - Parameter rebuild: builds every account afresh from the configuration on disk (SIGHUP).
    public init(accounts: WatchedAccounts, rebuild: @escaping @Sendable () throws -> WatchedAccounts, clock: any TophhieClock, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, log: @escaping @Sendable (String) -> Void, onReport: (@Sendable (PollReport) -> Void)? = nil) {
        self.accounts = accounts
        self.onReport = onReport
        self.rebuild = rebuild
        self.clock = clock
        self.random = random
        self.log = log
    }

    /// Polls until `stop()` or cancellation. With several accounts, a cycle polls them one
    /// after another at even steps over the interval, so their Graph requests are spread out
    /// rather than sent together.
    /// - Parameter maxCycles: stop after this many cycles (the demo); nil runs on.
    public func run(maxCycles: Int? = nil) async throws {
        while !stopping && !Task.isCancelled {
            if reloadRequested { await applyReload() }
            var polls: [WatchedAccounts.Poll] = []
            var index = 0
            while index < accounts.setups.count {
                if index > 0 {
                    await wait(Self.backoff(nextDelay() / Double(accounts.setups.count), unwritableCycles: unwritableCycles))
                    if stopping || Task.isCancelled { break }
                    // A reload keeps the accounts (`run` refuses one that changes them).
                    if reloadRequested { await applyReload() }
                    guard index < accounts.setups.count else { break }
                }
                let poll = await accounts.poll(index, now: clock.now())
                logPoll(poll)
                polls.append(poll)
                if stoppedBy != nil { break }
                index += 1
            }
            await finishCycle(polls)
            if let maxCycles, cycles >= maxCycles { break }
            if stopping || Task.isCancelled { break }
            if stoppedBy != nil { break }
            await wait(Self.backoff(nextDelay() / Double(accounts.setups.count), unwritableCycles: unwritableCycles))
        }
        log("stopped after \(cycles) cycle\(cycles == 1 ? "" : "s")")
        if let stoppedBy { throw stoppedBy }
    }

    /// The interval plus this cycle's share of the jitter.
    private func nextDelay() -> Double {
        PollSchedule(interval: accounts.configuration.pollInterval, jitter: accounts.configuration.pollJitter).delay(random: random())
    }

    /// Waits `seconds` in a task of its own, so stop() and reload() can cut it short;
    /// cancelling run() cuts it short too.
    private func wait(_ seconds: Double) async {
        let clock = self.clock
        let task = Task { try await clock.sleep(seconds: seconds) }
        sleeper = task
        await withTaskCancellationHandler {
            _ = try? await task.value
        } onCancel: {
            task.cancel()
        }
        sleeper = nil
    }

    /// The wait before the next cycle: the interval, doubled for each cycle in a row that could
    /// not write the state directory (up to 30 minutes, never less than the interval).
    static func backoff(_ wait: Double, unwritableCycles: Int) -> Double {
        guard unwritableCycles > 1 else { return wait }
        return max(wait, min(wait * pow(2, Double(min(unwritableCycles - 1, 10))), 1800))
    }

    /// Logs one account's poll; with named accounts each line begins with the account's name.
    private func logPoll(_ poll: WatchedAccounts.Poll) {
        let log: (String) -> Void = { [log] line in log(WatchedAccounts.logLine(line, account: poll.account)) }
        switch poll.result {
        case .success(let report):
            reports.append(report)
            if reports.count > 100 { reports.removeFirst(reports.count - 100) }
            if let onReport { onReport(report) } else { log(report.summary) }
            for skipped in report.skipped { log(skipped.description) }
        case .failure(let error as StateUnwritable):
            if error.directoryGone {
                log("stopping: \(error)")
                stoppedBy = error
            } else {
                let next = Self.backoff(accounts.configuration.pollInterval, unwritableCycles: unwritableCycles + 1)
                log("poll failed: \(error); retrying in \(DurationText.text(next))")
            }
        case .failure(let error):
            log("poll failed: \(error)")
        }
    }

    /// Ends a cycle: counts it, keeps the count of cycles that could not write a state
    /// directory (the wait grows with them), and tells the heartbeat and metrics.
    private func finishCycle(_ polls: [WatchedAccounts.Poll]) async {
        cycles += 1
        let unwritable = polls.contains { poll in
            if case .failure(let error) = poll.result, error is StateUnwritable { return true }
            return false
        }
        if unwritable {
            unwritableCycles += 1
        } else if unwritableCycles > 0 {
            log("the state directory can be written again after \(unwritableCycles) cycle\(unwritableCycles == 1 ? "" : "s") that could not")
            unwritableCycles = 0
        }
        for problem in await accounts.recordHealth(polls, at: clock.now()) { log(problem) }
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
            accounts = try rebuild()
            let count = accounts.rules.ruleCount
            log("reloaded configuration and \(count) rules")
            if let refused = reloadRefused {
                reloadRefused = nil
                await tell(SystemNotice.alert(.rulesReloaded, fingerprint: "\(refused)|reloaded|\(GraphTimestamp.graphText(now))", detail: "now running \(count) rule\(count == 1 ? "" : "s") (the reload refused at \(GraphTimestamp.alertText(refused)) is fixed)", since: refused, now: now))
            }
        } catch {
            log("reload failed, keeping the previous configuration and rules: \(error)")
            let text = "\(error)".replacingOccurrences(of: "\n  ", with: "; ").replacingOccurrences(of: "\n", with: "; ")
            let count = accounts.rules.ruleCount
            reloadRefused = reloadRefused ?? now
            await tell(SystemNotice.alert(.rulesReloadFailed, fingerprint: text, detail: "\(text); still running the previous \(count) rule\(count == 1 ? "" : "s")", since: now, now: now))
        }
    }

    /// Queues a notice in the outboxes and delivers it now, not at the end of the next cycle.
    /// It is the agent's, not an account's: each notifier is told once, through the first
    /// account that has it.
    private func tell(_ notice: Alert) async {
        var told: Set<String> = []
        for setup in accounts.setups {
            // The outboxes themselves: the notice is no account's.
            let dispatch = setup.dispatch
            do {
                if try await dispatch.append([notice], excluding: told) > 0 {
                    _ = await dispatch.deliverPending(budget: PollCycle.noticeDeliveryBudget)
                }
            } catch {
                log(WatchedAccounts.logLine("could not queue the notice '\(notice.rule.title)': \(error)", account: setup.configuration.account))
            }
            told.formUnion(setup.configuration.notifiers.map(\.name))
        }
    }
}
