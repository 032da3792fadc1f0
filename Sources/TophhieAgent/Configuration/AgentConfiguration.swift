import Foundation
import TophhieAuth
import TophhieRules
import YAMLReader

/// Everything the agent and the commands read from the config file, with defaults.
public struct AgentConfiguration: Sendable, Equatable {
    public var tenant: String?
    public var clientID: String?
    /// The full authority; nil means `https://login.microsoftonline.com/{tenant}`.
    public var authority: URL?
    public var graphBaseURL: URL
    /// Which Graph version the sign-in log is read from (`graph.api`): beta reads both streams.
    public var signInAPI: SignInLogAPI = .beta
    public var stateDirectory: URL
    /// 7 (Entra ID Free) or 30 (P1/P2): how far back Graph still has events.
    public var retentionDays: Int
    /// Seconds between polls in `run` (default 5 minutes).
    public var pollInterval: Double
    /// Up to this many seconds are added at random to each interval, so many agents spread out.
    public var pollJitter: Double
    /// How far back each poll re-reads, for events that land late (default 24 hours).
    public var lookback: Double
    /// Files or folders of rules.
    public var rulePaths: [String]
    public var notifiers: [NotifierConfiguration]
    /// How long a notifier may deliver nothing before the others are told (`delivery.failing_after`).
    public var channelFailingAfter: Double = PollCycle.defaultChannelFailingAfter
    /// How long a sign-in stream may be throttled or failing before it is told (`graph.stream_failing_after`).
    public var streamFailingAfter: Double = PollCycle.defaultStreamFailingAfter
    /// How long each notifier may deliver in one cycle (`delivery.budget`).
    public var deliveryBudget: Double = OutboxDelivery.defaultBudget
    /// The heartbeat and metrics file that tell the outside world the agent is alive.
    public var health: HealthReporter.Settings = HealthReporter.Settings()
    /// The people watched (`accounts:`); empty watches the one signed-in account, `default`.
    public var accounts: [AccountConfiguration] = []
    /// Set on the configuration of one of `accounts` (`account(named:)`): whose alerts these are.
    public var account: String?
    /// The file this came from, for messages.
    public var sourceFile: String?
    /// How the file was found (or where none was), for `status` and messages.
    public var search: ConfigFileSearch?

    public init(stateDirectory: URL) {
        self.graphBaseURL = TophhieConfiguration.defaultGraphBaseURL
        self.stateDirectory = stateDirectory
        self.retentionDays = 30
        self.pollInterval = 300
        self.pollJitter = 30
        self.lookback = 86_400
        self.rulePaths = []
        self.notifiers = [NotifierConfiguration(name: "stdout", type: "stdout")]
    }

    /// `$STATE_DIRECTORY` (systemd), else `$XDG_STATE_HOME/tophhie-watch`, else `~/.local/state/tophhie-watch`.
    public static func defaultStateDirectory(environment: [String: String]) -> URL {
        if let systemd = environment["STATE_DIRECTORY"], !systemd.isEmpty { return URL(fileURLWithPath: systemd) }
        if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty { return URL(fileURLWithPath: xdg).appendingPathComponent("tophhie-watch") }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/tophhie-watch")
    }

    /// The framework configuration these settings describe.
    /// - Throws: `ConfigurationError` when the tenant or client id is missing or a URL is unusable.
    public func authConfiguration() throws -> TophhieConfiguration {
        guard let tenant, !tenant.isEmpty else {
            throw ConfigurationError("no tenant: \(whereToSet("tenant")), pass --tenant, or set TOPHHIE_TENANT", file: sourceFile)
        }
        guard let clientID, !clientID.isEmpty else {
            throw ConfigurationError("no client id: \(whereToSet("client_id")), pass --client-id, or set TOPHHIE_CLIENT_ID", file: sourceFile)
        }
        var configuration: TophhieConfiguration
        if let authority {
            configuration = TophhieConfiguration(tenant: tenant, clientID: clientID, authority: authority, graphBaseURL: graphBaseURL, stateDirectory: stateDirectory, retentionDays: retentionDays)
        } else {
            configuration = TophhieConfiguration(tenant: tenant, clientID: clientID, graphBaseURL: graphBaseURL, stateDirectory: stateDirectory, retentionDays: retentionDays)
        }
        configuration.signInAPI = signInAPI
        do { try configuration.validate() } catch let error as TophhieAuthError {
            throw ConfigurationError(error.localizedDescription.replacingOccurrences(of: "configuration: ", with: ""), file: sourceFile)
        }
        return configuration
    }

    /// Where a missing key is to be set: in the file read, or, when none was found, in one of
    /// the places looked.
    func whereToSet(_ key: String) -> String {
        if sourceFile != nil { return "set '\(key)' in this file" }
        guard let search, search.foundPath == nil else { return "set '\(key)' in the config file" }
        return "no config file was found (looked for \(search.looked.joined(separator: ", "))); write '\(key):' in the first, pass --config FILE"
    }

    /// Reads a config file.
    /// - Parameter environment: where `secret_env` names are looked up later, and `${VAR}` is not expanded.
    /// - Throws: `ConfigurationError` with `file:line:col` for every problem found first.
    public static func load(file: URL, environment: [String: String]) throws -> AgentConfiguration {
        let text: String
        do { text = try String(contentsOf: file, encoding: .utf8) } catch {
            throw ConfigurationError("cannot read the config file: \(error.localizedDescription)", file: file.path)
        }
        return try parse(text, file: file.path, baseDirectory: file.deletingLastPathComponent(), environment: environment)
    }

    /// Reads config text; relative paths are taken from `baseDirectory`.
    public static func parse(_ text: String, file: String, baseDirectory: URL, environment: [String: String]) throws -> AgentConfiguration {
        let root: YAMLNode
        do {
            let documents = try YAMLReader.documents(text)
            guard documents.count <= 1 else { throw ConfigurationError("the config file must hold one YAML document, not \(documents.count)", file: file) }
            guard let first = documents.first else {
                throw ConfigurationError("the config file is empty", file: file)
            }
            root = first
        } catch let error as YAMLError {
            throw ConfigurationError(error.message, file: file, line: error.mark.line, column: error.mark.column)
        }
        let reader = ConfigReader(file: file)
        let top = try reader.mapping(root, "the config file")
        var configuration = AgentConfiguration(stateDirectory: defaultStateDirectory(environment: environment))
        configuration.sourceFile = file
        var accountsNode: YAMLNode?
        let known: Set<String> = ["tenant", "client_id", "authority", "graph", "graph_url", "state_dir", "retention_days", "poll", "rules", "notifiers", "delivery", "health", "accounts"]
        for (key, value) in top {
            guard known.contains(key.text) else {
                throw reader.error("unknown key '\(key.text)'; known keys: \(known.sorted().joined(separator: ", "))", at: key.node)
            }
            switch key.text {
            // Left empty, as the shipped file has them: not set yet.
            case "tenant":
                guard !reader.isNull(value) else { break }
                let tenant = try reader.string(value, key.text)
                if let problem = DirectoryIdentifiers.tenantProblem(tenant) { throw reader.error(ControlCharacterEscaping.escape(problem), at: value) }
                configuration.tenant = tenant
            case "client_id":
                guard !reader.isNull(value) else { break }
                let clientID = try reader.string(value, key.text)
                if let problem = DirectoryIdentifiers.clientProblem(clientID) { throw reader.error(ControlCharacterEscaping.escape(problem), at: value) }
                configuration.clientID = clientID
            case "authority": configuration.authority = try reader.url(value, key.text)
            case "graph_url": configuration.graphBaseURL = try reader.url(value, key.text)
            case "graph":
                for (graphKey, graphValue) in try reader.mapping(value, "graph") {
                    switch graphKey.text {
                    case "api":
                        let text = try reader.string(graphValue, "graph.api")
                        guard let api = SignInLogAPI(rawValue: text) else {
                            throw reader.error("graph.api must be beta (interactive and non-interactive sign-ins) or v1.0 (interactive only), not '\(text)'", at: graphValue)
                        }
                        configuration.signInAPI = api
                    case "url": configuration.graphBaseURL = try reader.url(graphValue, "graph.url")
                    case "stream_failing_after":
                        let seconds = try reader.duration(graphValue, "graph.stream_failing_after")
                        guard seconds >= 300 else { throw reader.error("graph.stream_failing_after must be at least 5m: one throttled poll is not news", at: graphValue) }
                        configuration.streamFailingAfter = seconds
                    default: throw reader.error("unknown key 'graph.\(graphKey.text)'; known: api, url, stream_failing_after", at: graphKey.node)
                    }
                }
            case "state_dir": configuration.stateDirectory = reader.path(try reader.string(value, key.text), base: baseDirectory)
            case "retention_days":
                let days = try reader.integer(value, key.text)
                guard days == 7 || days == 30 || (1...90).contains(days) else { throw reader.error("retention_days must be between 1 and 90 (7 for Entra ID Free, 30 for P1/P2)", at: value) }
                configuration.retentionDays = days
            case "poll":
                for (pollKey, pollValue) in try reader.mapping(value, "poll") {
                    switch pollKey.text {
                    case "interval":
                        let seconds = try reader.duration(pollValue, "poll.interval")
                        guard seconds >= 60 else { throw reader.error("poll.interval must be at least 1m: the sign-in log API allows about 5 requests per 10 s per app and tenant", at: pollValue) }
                        configuration.pollInterval = seconds
                    case "jitter": configuration.pollJitter = try reader.duration(pollValue, "poll.jitter")
                    case "lookback":
                        let seconds = try reader.duration(pollValue, "poll.lookback")
                        guard seconds >= 3600 else { throw reader.error("poll.lookback must be at least 1h: sign-ins land minutes to hours late", at: pollValue) }
                        configuration.lookback = seconds
                    default: throw reader.error("unknown key 'poll.\(pollKey.text)'; known: interval, jitter, lookback", at: pollKey.node)
                    }
                }
            case "rules":
                // The pack built in is named, not a file beside the config: kept as written.
                configuration.rulePaths = try reader.stringList(value, "rules").map { $0 == BuiltInRulePack.path ? $0 : reader.path($0, base: baseDirectory).path }
            case "notifiers":
                configuration.notifiers = try reader.notifiers(value)
            case "accounts":
                configuration.accounts = try reader.accounts(value, notifiers: nil)
                accountsNode = value
            case "delivery":
                for (deliveryKey, deliveryValue) in try reader.mapping(value, "delivery") {
                    switch deliveryKey.text {
                    case "failing_after":
                        let seconds = try reader.duration(deliveryValue, "delivery.failing_after")
                        guard seconds >= 300 else { throw reader.error("delivery.failing_after must be at least 5m: a receiver's short restart is not news", at: deliveryValue) }
                        configuration.channelFailingAfter = seconds
                    case "budget":
                        let seconds = try reader.duration(deliveryValue, "delivery.budget")
                        guard seconds >= 5 else { throw reader.error("delivery.budget must be at least 5s", at: deliveryValue) }
                        configuration.deliveryBudget = seconds
                    default: throw reader.error("unknown key 'delivery.\(deliveryKey.text)'; known: failing_after, budget", at: deliveryKey.node)
                    }
                }
            case "health":
                for (healthKey, healthValue) in try reader.mapping(value, "health") {
                    switch healthKey.text {
                    case "heartbeat_url": configuration.health.heartbeatURL = try reader.url(healthValue, "health.heartbeat_url")
                    case "heartbeat_fail_url": configuration.health.heartbeatFailURL = try reader.url(healthValue, "health.heartbeat_fail_url")
                    case "metrics_file": configuration.health.metricsFile = reader.path(try reader.string(healthValue, "health.metrics_file"), base: baseDirectory)
                    default: throw reader.error("unknown key 'health.\(healthKey.text)'; known: heartbeat_url, heartbeat_fail_url, metrics_file", at: healthKey.node)
                    }
                }
                if configuration.health.heartbeatFailURL != nil, configuration.health.heartbeatURL == nil {
                    throw reader.error("health.heartbeat_fail_url needs health.heartbeat_url beside it", at: value)
                }
            default: break
            }
        }
        if let accountsNode {
            // Checked once every key is read: `notifiers:` may come after `accounts:`.
            let known = Set(configuration.notifiers.map(\.name))
            for account in configuration.accounts {
                for name in account.notifiers ?? [] where !known.contains(name) {
                    throw ConfigurationError("account '\(account.name)' names the notifier '\(ControlCharacterEscaping.escape(name))', which is not configured; notifiers: \(known.sorted().joined(separator: ", "))", file: file, line: account.line ?? accountsNode.mark.line, column: account.column ?? accountsNode.mark.column)
                }
            }
        }
        return configuration
    }
}

/// Reads typed values out of YAML nodes, with errors that point at the node.
struct ConfigReader {
    let file: String

    func error(_ message: String, at node: YAMLNode) -> ConfigurationError {
        ConfigurationError(message, file: file, line: node.mark.line, column: node.mark.column)
    }

    func mapping(_ node: YAMLNode, _ what: String) throws -> [(key: (text: String, node: YAMLNode), value: YAMLNode)] {
        guard case .mapping(let pairs) = node.kind else { throw error("\(what) must be a mapping of keys to values", at: node) }
        return try pairs.map { pair in
            guard case .scalar(let scalar) = pair.key.kind else { throw error("keys must be plain text", at: pair.key) }
            return ((scalar.text, pair.key), pair.value)
        }
    }

    /// Whether the node is YAML's null (an empty value, `~`, `null`).
    func isNull(_ node: YAMLNode) -> Bool {
        guard case .scalar(let scalar) = node.kind else { return false }
        return scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.text)
    }

    func string(_ node: YAMLNode, _ key: String) throws -> String {
        guard case .scalar(let scalar) = node.kind, !(scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.text)) else {
            throw error("'\(key)' must be text", at: node)
        }
        return scalar.text
    }

    func integer(_ node: YAMLNode, _ key: String) throws -> Int {
        guard case .scalar(let scalar) = node.kind, scalar.style == .plain, let value = Int(scalar.text) else {
            throw error("'\(key)' must be a whole number", at: node)
        }
        return value
    }

    func duration(_ node: YAMLNode, _ key: String) throws -> Double {
        let text = try string(node, key)
        guard let seconds = DurationText.seconds(text) else {
            throw error("'\(key)' must be a duration such as 90s, 5m, 24h or 7d, not '\(text)'", at: node)
        }
        return seconds
    }

    func url(_ node: YAMLNode, _ key: String) throws -> URL {
        let text = try string(node, key)
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()), url.host != nil else {
            throw error("'\(key)' must be an http(s) URL (https except to loopback), not '\(text)'", at: node)
        }
        return url
    }

    func path(_ text: String, base: URL) -> URL {
        if text.hasPrefix("/") { return URL(fileURLWithPath: text) }
        if text.hasPrefix("~/") { return URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(String(text.dropFirst(2))) }
        return base.appendingPathComponent(text).standardizedFileURL
    }

    func stringList(_ node: YAMLNode, _ key: String) throws -> [String] {
        switch node.kind {
        case .sequence(let items): return try items.map { try string($0, key) }
        case .scalar: return [try string(node, key)]
        case .mapping: throw error("'\(key)' must be a list", at: node)
        }
    }

    func notifiers(_ node: YAMLNode) throws -> [NotifierConfiguration] {
        guard case .sequence(let items) = node.kind else { throw error("'notifiers' must be a list of notifiers", at: node) }
        var result: [NotifierConfiguration] = []
        var names: Set<String> = []
        for item in items {
            var options: [String: String] = [:]
            var name: String?
            var type: String?
            var level = AlertLevel.informational
            var rules: [String]?
            for (key, value) in try mapping(item, "a notifier") {
                switch key.text {
                case "name": name = try string(value, "name")
                case "type": type = try string(value, "type")
                case "min_level":
                    let text = try string(value, "min_level")
                    guard let parsed = AlertLevel(rawValue: text) else {
                        throw error("min_level must be one of \(AlertLevel.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'", at: value)
                    }
                    level = parsed
                case "rules": rules = try stringList(value, "rules")
                // An email notifier's `to` may be one address or a list.
                case "to": options["to"] = try stringList(value, "to").joined(separator: ", ")
                default: options[key.text] = try string(value, key.text)
                }
            }
            guard let type else { throw error("a notifier needs a 'type' (stdout, syslog, webhook or email)", at: item) }
            guard ["stdout", "syslog", "webhook", "email"].contains(type) else {
                throw error("unknown notifier type '\(type)'; use stdout, syslog, webhook or email", at: item)
            }
            let finalName = name ?? type
            guard finalName.range(of: "^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$", options: .regularExpression) != nil else {
                throw error("notifier name '\(finalName)' may use letters, digits, '.', '_' and '-' only, and may not start with '.' (it names a file)", at: item)
            }
            // The outbox keeps <name>.jsonl beside <name>.settled.jsonl and <name>.dead.jsonl.
            guard !finalName.hasSuffix(".settled"), !finalName.hasSuffix(".dead"), !finalName.hasSuffix(".status") else {
                throw error("notifier name '\(finalName)' may not end in .settled, .dead or .status (the outbox uses those names)", at: item)
            }
            guard names.insert(finalName).inserted else {
                throw error("two notifiers are named '\(finalName)'; give each a unique 'name'", at: item)
            }
            result.append(NotifierConfiguration(name: finalName, type: type, minimumLevel: level, ruleIDs: rules, options: options, file: file, line: item.mark.line, column: item.mark.column))
        }
        return result
    }
}
