import Foundation
import TophhieAuth
import TophhieRules
import TophhieRulesFast
import TophhieSystem

/// Everything one configuration builds: the framework, the rules, the notifiers and their outboxes.
public struct AgentSetup: Sendable {
    public let configuration: AgentConfiguration
    public let auth: TophhieAuth
    public let rules: RuleSet
    public let cycle: PollCycle
    public let dispatch: OutboxDispatch
    /// The heartbeat and metrics file, told after every poll.
    public let health: HealthReporter
    /// Rule warnings and notes worth a log line (errors stop the build instead).
    public let ruleNotes: [RuleDiagnostic]
    /// Configuration that loads but will not do what it seems to (`file:line:col: warning: …`).
    public let configurationWarnings: [String]

    /// The external pieces the setup uses; the demo and tests replace the clock.
    public struct Environment: Sendable {
        public var variables: [String: String]
        public var outputIsTerminal: Bool
        public var write: (@Sendable (String) throws -> Void)?
        public var clock: any TophhieClock
        /// How Graph, the identity platform and webhooks are reached; URLSession by default.
        public var transport: any HTTPTransport
        /// Where rules are looked for when the config names none.
        public var workingDirectory: URL
        /// The running binary, for the rules installed beside it.
        public var executable: URL?
        /// The Graph budget every account of one agent shares; nil for one account alone.
        public var graphBudget: GraphBudget?
        /// Whether this account tells the agent's own notices (the first of several does).
        public var tellsAgentNotices = true

        public init(variables: [String: String], outputIsTerminal: Bool = false, write: (@Sendable (String) throws -> Void)? = nil, clock: any TophhieClock = SystemClock(), transport: any HTTPTransport = URLSessionTransport(), workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath), executable: URL? = ProcessFacts.executablePath().map { URL(fileURLWithPath: $0) }) {
            self.transport = transport
            self.variables = variables
            self.outputIsTerminal = outputIsTerminal
            self.write = write
            self.clock = clock
            self.workingDirectory = workingDirectory
            self.executable = executable
        }
    }

    /// Builds the agent from a configuration.
    /// - Throws: `ConfigurationError` for a bad notifier, unreadable rules, or rules with errors
    ///   (each `file:line:col` listed).
    /// - Parameter rules: rules already loaded for another account of the same configuration.
    public static func build(_ configuration: AgentConfiguration, environment: Environment, rules loaded: RuleSet? = nil) throws -> AgentSetup {
        let authConfiguration = try configuration.authConfiguration()
        let clock = environment.clock
        let auth = TophhieAuth(configuration: authConfiguration, transport: environment.transport, clock: clock, graphBudget: environment.graphBudget)
        let rules = try loaded ?? loadRules(configuration, environment: environment)
        let factory = NotifierFactory(environment: environment.variables, outputIsTerminal: environment.outputIsTerminal, write: environment.write, now: { clock.now() }, transport: environment.transport)
        let notifiers = try configuration.notifiers.map(factory.make)
        let warnings = configuration.notifiers.flatMap(factory.warnings)
        let dispatch = try OutboxDispatch(stateDirectory: configuration.stateDirectory, notifiers: notifiers, now: { clock.now() }, sleep: { duration in
            let parts = duration.components
            try await clock.sleep(seconds: Double(parts.seconds) + Double(parts.attoseconds) / 1e18)
        }, budget: configuration.deliveryBudget)
        let choice: EngineChoice
        do { choice = try EngineChoice.forced(by: environment.variables) ?? .plain } catch let error as EngineChoice.UnknownName { throw ConfigurationError(error.description) }
        let engine = choice.evaluator(rules: rules, settings: EngineSettings(lookback: configuration.lookback))
        // One of several accounts: what it sends says whose it is.
        let attributed: any AlertDispatch = configuration.account.map { AttributedDispatch(base: dispatch, account: $0, auth: auth, tellsAgentNotices: environment.tellsAgentNotices) } ?? dispatch
        var cycle = PollCycle(auth: auth, engine: engine, store: StateStore(stateDirectory: configuration.stateDirectory), planner: AgentSetup.planner(configuration), dispatch: attributed)
        cycle.channelFailingAfter = configuration.channelFailingAfter
        cycle.streamFailingAfter = configuration.streamFailingAfter
        cycle.runtimeDirectory = environment.variables["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
        cycle.ruleWarnings = rules.diagnostics.filter { $0.severity == .warning }.map(\.description)
        var health = HealthReporter(settings: configuration.health, transport: environment.transport)
        health.channelFailingAfter = configuration.channelFailingAfter
        return AgentSetup(configuration: configuration, auth: auth, rules: rules, cycle: cycle, dispatch: dispatch, health: health, ruleNotes: rules.diagnostics.filter { $0.severity != .error }, configurationWarnings: warnings)
    }

    /// The configured rule paths, or `$TOPHHIE_RULES`, or `./rules` when it exists, or the rules
    /// an installed agent carries (`installedRules`), or the pack compiled into the binary.
    /// The planner the configuration describes: its retention, lookback, version and the most time
    /// between two polls' starts.
    public static func planner(_ configuration: AgentConfiguration) -> PollPlanner {
        PollPlanner(retentionDays: configuration.retentionDays, lookback: configuration.lookback, api: configuration.signInAPI,
                    pollSpacing: configuration.pollInterval + configuration.pollJitter + PollPlanner.pollDuration)
    }

    public static func rulePaths(_ configuration: AgentConfiguration, environment: Environment) -> [String] {
        if !configuration.rulePaths.isEmpty { return configuration.rulePaths }
        if let fromEnvironment = environment.variables["TOPHHIE_RULES"], !fromEnvironment.isEmpty {
            // `builtin:rules` holds a colon of its own.
            return fromEnvironment.replacingOccurrences(of: BuiltInRulePack.path, with: "\u{0}").split(separator: ":").map { $0.replacingOccurrences(of: "\u{0}", with: BuiltInRulePack.path) }
        }
        let local = environment.workingDirectory.appendingPathComponent("rules").path
        if FileManager.default.fileExists(atPath: local) { return [local] }
        if let installed = installedRules(executable: environment.executable) { return [installed] }
        return [BuiltInRulePack.path]
    }

    /// Words for where rules come from, for `status` and `doctor`.
    public static func describe(rulePaths paths: [String]) -> String {
        paths.map { $0 == BuiltInRulePack.path ? "the pack built into the binary (\(BuiltInRulePack.path); 'tophhie-watch rules export DIR' writes it out for tuning)" : $0 }.joined(separator: ", ")
    }

    /// Where `install.sh` puts the default rules: beside the binary's prefix
    /// (`bin/../share/tophhie-watch/rules`, so an unpacked archive finds its own), then
    /// `/usr/local/share/tophhie-watch/rules` and `/usr/share/tophhie-watch/rules`.
    public static func installedRules(executable: URL?) -> String? {
        var candidates: [String] = []
        if let executable {
            let prefix = executable.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            candidates.append(prefix.appendingPathComponent("share/tophhie-watch/rules").path)
            candidates.append(executable.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("rules").path)
        }
        candidates += ["/usr/local/share/tophhie-watch/rules", "/usr/share/tophhie-watch/rules"]
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// The rules the configuration names, loaded and checked.
    /// - Throws: `ConfigurationError` when they cannot be read, have errors, or are none.
    public static func loadRules(_ configuration: AgentConfiguration, environment: Environment) throws -> RuleSet {
        let paths = rulePaths(configuration, environment: environment)
        let sources: [RuleSource]
        do { sources = try RuleSource.read(paths: paths) } catch {
            throw ConfigurationError("cannot read rules: \(error); set 'rules:' in the config file or TOPHHIE_RULES", file: configuration.sourceFile)
        }
        let rules = RuleLoader.load(sources, placeholders: .agent(clientID: configuration.clientID), schema: configuration.signInAPI == .v1 ? .v1 : .beta, refuseUnknownFields: true)
        if rules.hasErrors {
            let errors = rules.diagnostics.filter { $0.severity == .error }
            throw ConfigurationError("the rules have \(errors.count) error\(errors.count == 1 ? "" : "s"):\n" + errors.map { "  \($0)" }.joined(separator: "\n"), file: configuration.sourceFile)
        }
        guard rules.ruleCount > 0 else {
            throw ConfigurationError("no rules found in \(paths.joined(separator: ", "))", file: configuration.sourceFile)
        }
        return rules
    }
}
