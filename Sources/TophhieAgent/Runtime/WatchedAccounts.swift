import Foundation
import TophhieAuth
import TophhieRules

/// Every account one configuration watches, each built as its own `AgentSetup` (its own
/// sign-in, state, engine and outboxes), polled side by side in one cycle.
///
/// Without `accounts:` this is the one account, and everything reads as it did before accounts.
public struct WatchedAccounts: Sendable {
    /// The configuration as written, before it was narrowed to each account.
    public let configuration: AgentConfiguration
    /// One setup per account, in the order configured.
    public let setups: [AgentSetup]
    /// The heartbeat and metrics file, told once per cycle for every account together: the
    /// health settings are the configuration's, the same in every account's setup.
    public var health: HealthReporter { setups[0].health }
    /// How many accounts are polled at once; the Graph budget paces their requests.
    public var concurrency = 4

    /// The rules of the first account (every account runs the same files).
    public var rules: RuleSet { setups[0].rules }

    /// Builds every account. Rules are read once for each app registration (their
    /// placeholders name its client id).
    /// - Throws: `ConfigurationError` as `AgentSetup.build` does, prefixed with the account's
    ///   name when there are named accounts.
    public static func build(_ configuration: AgentConfiguration, environment: AgentSetup.Environment) throws -> WatchedAccounts {
        try configuration.checkGraphBudget()
        var environment = environment
        // Named accounts share one budget: their requests are Graph's per app and tenant.
        if configuration.namesAccounts && environment.graphBudget == nil { environment.graphBudget = GraphBudget(clock: environment.clock) }
        var setups: [AgentSetup] = []
        var rulesByClient: [String: RuleSet] = [:]
        for account in configuration.everyAccount() {
            let setup: AgentSetup
            do {
                var own = environment
                own.tellsAgentNotices = setups.isEmpty
                setup = try AgentSetup.build(account, environment: own, rules: rulesByClient[account.clientID ?? ""])
            } catch let error as ConfigurationError where account.account != nil {
                throw ConfigurationError("account '\(account.account ?? "")': \(error.message)", file: error.file, line: error.line, column: error.column)
            }
            rulesByClient[account.clientID ?? ""] = setup.rules
            setups.append(setup)
        }
        return WatchedAccounts(configuration: configuration, setups: setups)
    }

    public init(configuration: AgentConfiguration, setups: [AgentSetup]) {
        precondition(!setups.isEmpty, "a configuration watches at least one account")
        self.configuration = configuration
        self.setups = setups
    }

    /// One account as the one setup: the demo and tests build a setup alone.
    public init(setup: AgentSetup) {
        self.init(configuration: setup.configuration, setups: [setup])
    }

    /// One account's part of a cycle.
    public struct Poll: Sendable {
        /// The account's name with `accounts:`, else nil.
        public var account: String?
        public var setup: AgentSetup
        /// The poll's report, or what it threw (the state directory, the outbox).
        public var result: Result<PollReport, any Error>

        /// The report, when the poll did not throw.
        public var report: PollReport? { try? result.get() }
    }

    /// Polls every account, at most `concurrency` at once: one that needs a sign-in, is refused
    /// or throttled, or cannot write its state never keeps the others from being polled.
    /// - Parameter now: each account's poll starts at the time it says then.
    /// - Returns: one poll per account, in the order configured.
    public func pollEach(now: @escaping @Sendable () -> Date) async -> [Poll] {
        await withTaskGroup(of: (Int, Result<PollReport, any Error>).self) { group in
            var results = [Result<PollReport, any Error>?](repeating: nil, count: setups.count)
            var next = 0
            func start() {
                let index = next
                let cycle = setups[index].cycle
                next += 1
                group.addTask {
                    do { return (index, .success(try await cycle.run(now: now()))) } catch { return (index, .failure(error)) }
                }
            }
            while next < min(max(concurrency, 1), setups.count) { start() }
            for await (index, result) in group {
                results[index] = result
                if next < setups.count { start() }
            }
            return setups.enumerated().map { index, setup in
                Poll(account: setup.configuration.account, setup: setup, result: results[index] ?? .failure(CancellationError()))
            }
        }
    }

    /// Polls the account at `index` of `setups` at `now`.
    public func poll(_ index: Int, now: Date) async -> Poll {
        let setup = setups[index]
        do {
            return Poll(account: setup.configuration.account, setup: setup, result: .success(try await setup.cycle.run(now: now)))
        } catch {
            return Poll(account: setup.configuration.account, setup: setup, result: .failure(error))
        }
    }

    /// Tells the heartbeat and the metrics file about a cycle.
    public func recordHealth(_ polls: [Poll], at now: Date) async -> [String] {
        await health.record(polls.map { poll in
            HealthReporter.AccountPoll(account: poll.account, stateDirectory: poll.setup.configuration.stateDirectory, notifiers: poll.setup.configuration.notifiers.map(\.name), report: poll.report)
        }, at: now)
    }

    /// `line` as the log says it for `account`: "jane: …" with named accounts, else as it is;
    /// the commands it suggests are for that account.
    public static func logLine(_ line: String, account: String?) -> String {
        account.map { "\($0): \(commands(in: line, account: $0))" } ?? line
    }

    /// `text` with each command it suggests that acts on one account ("run 'tophhie-watch
    /// login'") given `--account`, so the person runs it for the right account.
    public static func commands(in text: String, account: String) -> String {
        var text = text
        for command in ["login", "logout", "doctor", "respond", "outbox list", "outbox retry", "outbox enable"] {
            text = text.replacingOccurrences(of: "'tophhie-watch \(command)", with: "'tophhie-watch \(command) --account \(account)")
        }
        return text
    }
}
