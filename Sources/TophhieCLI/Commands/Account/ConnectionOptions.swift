import Foundation
import TophhieAuth
import TophhieAgent

/// The options every command that talks to the tenant takes, and how they become a configuration.
///
/// Precedence: flags, then `TOPHHIE_*` environment variables, then the config file, then defaults.
struct ConnectionOptions: OptionGroup {
    /// `--config`, declared apart too: the command tree carries it into the commands it suggests.
    static let configFile: Option<String?> = .file("config", help: "config file (default: $TOPHHIE_CONFIG, else ~/.config/tophhie-watch/config.yml, else /etc/tophhie-watch/config.yml)")

    var config = Self.configFile
    var tenant: Option<String?> = .text("tenant", value: "ID", help: "tenant id or domain ($TOPHHIE_TENANT)")
    var clientID: Option<String?> = .text("client-id", value: "ID", help: "app registration's client id ($TOPHHIE_CLIENT_ID)")
    var authority: Option<String?> = .text("authority", value: "URL", help: "full authority, e.g. https://contoso.ciamlogin.com/<tenant> ($TOPHHIE_AUTHORITY)")
    var graphURL: Option<String?> = .text("graph-url", value: "URL", help: "Graph root with version (default https://graph.microsoft.com/v1.0; $TOPHHIE_GRAPH_URL)")
    var stateDirectory: Option<String?> = .text("state-dir", value: "DIR", kind: .directory, help: "folder for the token cache and state ($TOPHHIE_STATE_DIR; default ~/.local/state/tophhie-watch)")
    var account: Option<String?> = .text("account", value: "NAME", help: "which of the config's 'accounts:' to act on (default: the only one; poll, run and status take every one)")

    /// `--rules`, for the commands that load rules (`poll`, `run`, `doctor`).
    static let rules: Option<[String]> = .list("rules", value: "PATH", kind: .path, help: "rule file or folder, instead of the config's 'rules:' (repeatable; default ./rules, else the installed rules, else the pack built in: builtin:rules)")

    /// The rules to use when a command names none: `$TOPHHIE_RULES`, `./rules` when it exists,
    /// or the rules installed beside the binary.
    static func defaultRulePaths(_ io: CommandIO) -> [String] {
        AgentSetup.rulePaths(AgentConfiguration(stateDirectory: URL(fileURLWithPath: "/")), environment: .init(variables: io.environment))
    }

    /// The configuration of the one account the command acts on: `--account`, or the only one.
    /// - Throws: as `watchedConfiguration`, and `ConfigurationError` naming the accounts when
    ///   `--account` is none of them, or is missing and there are several.
    static func agentConfiguration(_ options: ParsedOptions<ConnectionOptions>, rules rulePaths: [String] = [], io: CommandIO) throws -> AgentConfiguration {
        try wholeConfiguration(options, rules: rulePaths, io: io).account(named: options.account)
    }

    /// The configuration of every account (`poll`, `run`, `status`), or of the one `--account` names.
    /// - Throws: `UsageError` when the tenant or client id is missing or a value is malformed;
    ///   `ConfigurationError` (with file:line:col) from the config file.
    /// - Parameter rules: the command's `--rules`, when it takes them.
    static func watchedConfiguration(_ options: ParsedOptions<ConnectionOptions>, rules rulePaths: [String] = [], io: CommandIO) throws -> AgentConfiguration {
        let configuration = try wholeConfiguration(options, rules: rulePaths, io: io)
        return options.account == nil ? configuration : try configuration.account(named: options.account)
    }

    private static func wholeConfiguration(_ options: ParsedOptions<ConnectionOptions>, rules rulePaths: [String], io: CommandIO) throws -> AgentConfiguration {
        let env = io.environment
        // systemd's $STATE_DIRECTORY is only the default (AgentConfiguration.defaultStateDirectory):
        // a state_dir in the file still wins over it.
        let stateDirectory = options.stateDirectory ?? env["TOPHHIE_STATE_DIR"]
        var configuration: AgentConfiguration
        let defaultState = URL(fileURLWithPath: stateDirectory ?? AgentConfiguration.defaultStateDirectory(environment: env).path)
        let search = ConfigFileSearch(explicit: options.config, environment: env, stateDirectory: defaultState, systemFile: io.systemConfigFile)
        if let file = search.foundPath {
            configuration = try AgentConfiguration.load(file: URL(fileURLWithPath: file), environment: env)
        } else {
            configuration = AgentConfiguration(stateDirectory: defaultState)
        }
        configuration.search = search
        if let stateDirectory { configuration.stateDirectory = URL(fileURLWithPath: stateDirectory) }
        if !rulePaths.isEmpty { configuration.rulePaths = rulePaths }
        if let tenant = options.tenant ?? env["TOPHHIE_TENANT"] {
            if let problem = DirectoryIdentifiers.tenantProblem(tenant) { throw UsageError(ControlCharacterEscaping.escape(problem) + (options.tenant == nil ? " (from TOPHHIE_TENANT)" : "")) }
            configuration.tenant = tenant
        }
        if let client = options.clientID ?? env["TOPHHIE_CLIENT_ID"] {
            if let problem = DirectoryIdentifiers.clientProblem(client) { throw UsageError(ControlCharacterEscaping.escape(problem) + (options.clientID == nil ? " (from TOPHHIE_CLIENT_ID)" : "")) }
            configuration.clientID = client
        }
        if let authority = options.authority ?? env["TOPHHIE_AUTHORITY"] {
            guard let url = URL(string: authority), url.host != nil else { throw UsageError("'\(authority)' is not an authority URL") }
            configuration.authority = url
        }
        if let graph = options.graphURL ?? env["TOPHHIE_GRAPH_URL"] {
            guard let url = URL(string: graph), url.host != nil else { throw UsageError("'\(graph)' is not a Graph URL") }
            configuration.graphBaseURL = url
        }
        return configuration
    }

    /// The framework configuration, checked.
    static func authConfiguration(_ options: ParsedOptions<ConnectionOptions>, io: CommandIO) throws -> TophhieConfiguration {
        try agentConfiguration(options, io: io).authConfiguration()
    }
}
