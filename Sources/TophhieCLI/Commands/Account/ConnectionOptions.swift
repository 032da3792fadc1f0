import Foundation
import TophhieAuth
import TophhieAgent

/// The options every command that talks to the tenant takes, and how they become a configuration.
///
/// Precedence: flags, then `TOPHHIE_*` environment variables, then the config file, then defaults.
enum ConnectionOptions {
    static let specs: [OptionSpec] = [
        OptionSpec("config", value: "FILE", help: "config file (default: $TOPHHIE_CONFIG, else ~/.config/tophhie-watch/config.yml, else /etc/tophhie-watch/config.yml)"),
        OptionSpec("tenant", value: "ID", help: "tenant id or domain ($TOPHHIE_TENANT)"),
        OptionSpec("client-id", value: "ID", help: "app registration's client id ($TOPHHIE_CLIENT_ID)"),
        OptionSpec("authority", value: "URL", help: "full authority, e.g. https://contoso.ciamlogin.com/<tenant> ($TOPHHIE_AUTHORITY)"),
        OptionSpec("graph-url", value: "URL", help: "Graph root with version (default https://graph.microsoft.com/v1.0; $TOPHHIE_GRAPH_URL)"),
        OptionSpec("state-dir", value: "DIR", help: "folder for the token cache and state ($TOPHHIE_STATE_DIR; default ~/.local/state/tophhie-watch)"),
    ]

    /// `--rules`, for the commands that load rules (`poll`, `run`, `doctor`).
    static let rules = OptionSpec("rules", value: "PATH", repeatable: true, help: "rule file or folder, instead of the config's 'rules:' (repeatable; default ./rules, else the installed rules, else the pack built in: builtin:rules)")

    /// The rules to use when a command names none: `$TOPHHIE_RULES`, `./rules` when it exists,
    /// or the rules installed beside the binary.
    static func defaultRulePaths(_ io: CommandIO) -> [String] {
        AgentSetup.rulePaths(AgentConfiguration(stateDirectory: URL(fileURLWithPath: "/")), environment: .init(variables: io.environment))
    }

    /// The agent configuration the flags, environment and file describe.
    /// - Throws: `UsageError` when the tenant or client id is missing or a value is malformed;
    ///   `ConfigurationError` (with file:line:col) from the config file.
    static func agentConfiguration(_ arguments: ParsedArguments, io: CommandIO) throws -> AgentConfiguration {
        let env = io.environment
        // systemd's $STATE_DIRECTORY is only the default (AgentConfiguration.defaultStateDirectory):
        // a state_dir in the file still wins over it.
        let stateDirectory = arguments.value("state-dir") ?? env["TOPHHIE_STATE_DIR"]
        var configuration: AgentConfiguration
        let defaultState = URL(fileURLWithPath: stateDirectory ?? AgentConfiguration.defaultStateDirectory(environment: env).path)
        let search = ConfigFileSearch(explicit: arguments.value("config"), environment: env, stateDirectory: defaultState, systemFile: io.systemConfigFile)
        if let file = search.foundPath {
            configuration = try AgentConfiguration.load(file: URL(fileURLWithPath: file), environment: env)
        } else {
            configuration = AgentConfiguration(stateDirectory: defaultState)
        }
        configuration.search = search
        if let stateDirectory { configuration.stateDirectory = URL(fileURLWithPath: stateDirectory) }
        let rulePaths = arguments.values("rules")
        if !rulePaths.isEmpty { configuration.rulePaths = rulePaths }
        if let tenant = arguments.value("tenant") ?? env["TOPHHIE_TENANT"] {
            if let problem = DirectoryIdentifiers.tenantProblem(tenant) { throw UsageError(ControlCharacterEscaping.escape(problem) + (arguments.value("tenant") == nil ? " (from TOPHHIE_TENANT)" : "")) }
            configuration.tenant = tenant
        }
        if let client = arguments.value("client-id") ?? env["TOPHHIE_CLIENT_ID"] {
            if let problem = DirectoryIdentifiers.clientProblem(client) { throw UsageError(ControlCharacterEscaping.escape(problem) + (arguments.value("client-id") == nil ? " (from TOPHHIE_CLIENT_ID)" : "")) }
            configuration.clientID = client
        }
        if let authority = arguments.value("authority") ?? env["TOPHHIE_AUTHORITY"] {
            guard let url = URL(string: authority), url.host != nil else { throw UsageError("'\(authority)' is not an authority URL") }
            configuration.authority = url
        }
        if let graph = arguments.value("graph-url") ?? env["TOPHHIE_GRAPH_URL"] {
            guard let url = URL(string: graph), url.host != nil else { throw UsageError("'\(graph)' is not a Graph URL") }
            configuration.graphBaseURL = url
        }
        return configuration
    }

    /// The framework configuration, checked.
    static func authConfiguration(_ arguments: ParsedArguments, io: CommandIO) throws -> TophhieConfiguration {
        try agentConfiguration(arguments, io: io).authConfiguration()
    }
}
