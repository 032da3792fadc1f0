import Foundation
import TophhieSystem
import TophhieAgent
import TophhieAuth

/// `poll`: one cycle, for cron.
enum PollCommand: CLICommand {
    struct Options: OptionGroup {
        var connection = ConnectionOptions()
        var rules = ConnectionOptions.rules
        var quiet: Option<Bool> = .flag("quiet", help: "print nothing on a cycle that went well (for cron, which mails any output); problems still go to standard error")
    }

    static let about = CommandAbout(
        path: ["poll"],
        summary: "Run one poll cycle (for cron or a systemd timer) and deliver its alerts",
        discussion: """
        Locks the state directory, reads your sign-ins since a lookback before the last poll
        (default 24 h, never past retention), runs the rules, appends alerts to each notifier's
        outbox, commits the state, then delivers. The first poll learns baselines from the whole
        retained history and alerts only on the last lookback. A second poll started while one
        runs exits 0 with a message. The log goes to standard error; alerts to the notifiers.
        With --quiet a cycle that succeeded and delivered everything prints nothing.

        exit codes: 0 ok (everything delivered, or a backlog drained as far as the delivery
        budget allowed; or another poll was running), 1 failure (a notifier failed or nothing
        could be delivered), 2 configuration error or state not writable, 3 sign-in needed,
        4 access denied by Graph. With several accounts (accounts:) every one is read, each line
        begins with its name, and the most serious code wins: 2, 3, 4, 1, then 0.

        examples:
          tophhie-watch poll --config /etc/tophhie-watch/config.yml
          */5 * * * * tophhie-watch poll --quiet --config ~/.config/tophhie-watch/config.yml
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let configuration = try ConnectionOptions.watchedConfiguration(options.connection, rules: options.rules, io: io)
        let quiet = options.quiet
        let log = AgentLog.writer(io)
        // Quiet: what would be said about a cycle that went well waits for the cycle's outcome.
        let held = HeldLines()
        let info: @Sendable (String) -> Void = { line in if quiet { held.add(line) } else { log(line) } }
        guard let locks = try AgentLog.lock(configuration.everyAccount(), log: info) else { return .ok }
        defer { for lock in locks { lock.release() } }
        let accounts = try WatchedAccounts.build(configuration, environment: .init(variables: io.environment, outputIsTerminal: io.outIsTerminal, write: io.alertOut, clock: io.clock, transport: io.transport))
        AgentLog.warnings(accounts, log: info)
        let clock = io.clock
        let polls = await accounts.pollEach(now: { clock.now() })
        let healthProblems = await accounts.recordHealth(polls, at: io.clock.now())
        var codes: [ExitCode] = []
        for poll in polls {
            let say: @Sendable (String) -> Void = { info(WatchedAccounts.logLine($0, account: poll.account)) }
            switch poll.result {
            case .success(let report):
                say(report.summary)
                for skipped in report.skipped { say(skipped.description) }
                codes.append(exitCode(report))
            case .failure(let error):
                // One account: its error is the command's, told as before.
                guard poll.account != nil else {
                    held.flush(to: log)
                    for problem in healthProblems { log(problem) }
                    throw error
                }
                let (text, code) = ErrorReport.describe(error)
                log(WatchedAccounts.logLine("poll failed: \(text)", account: poll.account))
                codes.append(code)
            }
        }
        // A backlog drained as far as the budget allowed is progress, not failure (cron mails 1s).
        let code = ExitCode.mostSerious(codes)
        if code != .ok || !healthProblems.isEmpty { held.flush(to: log) }
        for problem in healthProblems { log(problem) }
        return code
    }

    /// What one account's poll exits with.
    static func exitCode(_ report: PollReport) -> ExitCode {
        switch report.outcome {
        case .succeeded:
            return report.wentWell ? .ok : .failure
        case .failed(let kind, _, _):
            switch kind {
            case .signInNeeded: return .signInNeeded
            case .accessDenied: return .accessDenied
            case .unavailable: return .failure
            }
        }
    }
}

/// `run`: the daemon loop.
enum RunCommand: CLICommand {
    /// Seconds a graceful stop may take before the cycle is cancelled.
    static let gracePeriod: Double = 30

    struct Options: OptionGroup {
        var connection = ConnectionOptions()
        var rules = ConnectionOptions.rules
    }

    static let about = CommandAbout(
        path: ["run"],
        summary: "Poll every interval until stopped (daemon mode; SIGHUP reloads, SIGTERM stops)",
        discussion: """
        Holds the state-directory lock for its whole life and polls every poll.interval (default
        5m) plus up to poll.jitter. SIGTERM or SIGINT lets the current cycle finish, then exits 0;
        a second signal, or 30 s, stops the cycle where it is (what was queued is sent next time).
        SIGHUP re-reads the config file and rules; a broken reload keeps the old ones and says so.

        examples:
          tophhie-watch run --config /etc/tophhie-watch/config.yml
          systemctl start tophhie-watch   (see examples/systemd/)
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let configuration = try ConnectionOptions.watchedConfiguration(options.connection, rules: options.rules, io: io)
        let log = AgentLog.writer(io)
        // A second daemon on the same state directory is a mistake to show (systemd marks the
        // unit failed), where a second cron poll is not.
        guard let locks = try AgentLog.lock(configuration.everyAccount(), log: log) else { return .failure }
        defer { for lock in locks { lock.release() } }
        let environment = AgentSetup.Environment(variables: io.environment, outputIsTerminal: io.outIsTerminal, write: io.alertOut, clock: io.clock, transport: io.transport)
        let accounts = try WatchedAccounts.build(configuration, environment: environment)
        AgentLog.warnings(accounts, log: log)
        let loop = AgentLoop(accounts: accounts, rebuild: {
            // An account added by a reload needs a lock of its own first; one removed keeps its
            // lock until the daemon stops.
            let reloaded = try ConnectionOptions.watchedConfiguration(options.connection, rules: options.rules, io: io)
            guard reloaded.accountNames == configuration.accountNames, reloaded.stateDirectory == configuration.stateDirectory else {
                throw ConfigurationError("the accounts or state_dir changed (\(configuration.accountNames.joined(separator: ", ")) → \(reloaded.accountNames.joined(separator: ", "))); restart the agent to watch the new set", file: reloaded.sourceFile)
            }
            return try WatchedAccounts.build(reloaded, environment: environment)
        }, clock: SystemClock(), log: log)
        let people = configuration.accounts.isEmpty ? "" : "\(configuration.accounts.count) account\(configuration.accounts.count == 1 ? "" : "s") (\(configuration.accountNames.joined(separator: ", "))), "
        log("running: \(people)\(accounts.rules.ruleCount) rules, \(configuration.notifiers.count) notifier\(configuration.notifiers.count == 1 ? "" : "s"), every \(DurationText.text(configuration.pollInterval)) (+ up to \(DurationText.text(configuration.pollJitter)))")
        // SIGTERM finishes the cycle; a second signal, or 30 s, stops it where it is (the outbox and
        // the state are durable at every step, so nothing is lost).
        try await ServiceGroup(services: [loop], signals: SignalHandlers.stream(), gracePeriod: RunCommand.gracePeriod, log: log).run()
        return .ok
    }
}

/// Log lines kept back until it is known whether they are worth saying.
final class HeldLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    func flush(to log: (String) -> Void) {
        for line in lock.withLock({ defer { lines = [] }; return lines }) { log(line) }
    }
}
