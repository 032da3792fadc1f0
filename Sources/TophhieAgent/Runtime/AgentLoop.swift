import Foundation
import TophhieAuth

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
            if reloadRequested { applyReload() }
            await cycle()
            if let maxCycles, cycles >= maxCycles { break }
            if stopping || Task.isCancelled { break }
            let schedule = PollSchedule(interval: setup.configuration.pollInterval, jitter: setup.configuration.pollJitter)
            let wait = schedule.delay(random: random())
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
    }

    /// Runs one cycle and logs it; disk errors are logged and retried next time.
    private func cycle() async {
        let now = clock.now()
        do {
            let report = try await setup.cycle.run(now: now)
            cycles += 1
            reports.append(report)
            if reports.count > 100 { reports.removeFirst(reports.count - 100) }
            if let onReport { onReport(report) } else { log(report.summary) }
            for skipped in report.skipped { log(skipped.description) }
            for problem in await setup.health.record(report, at: clock.now()) { log(problem) }
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

    private func applyReload() {
        reloadRequested = false
        do {
            setup = try rebuild()
            log("reloaded configuration and \(setup.rules.ruleCount) rules")
        } catch {
            log("reload failed, keeping the previous configuration and rules: \(error)")
        }
    }
}
