import Foundation
import Testing
import TophhieRules
@testable import TophhieAgent

/// The shipped example must stay a working configuration, and errors must point at the line.
@Suite(.timeLimit(.minutes(20))) struct ExampleConfigurationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// As shipped, the example monitors once tenant and client id are set: its one notifier is
    /// stdout, which needs nothing that may be missing (a secret file, a syslog socket).
    @Test func theExampleConfigMonitorsAsShippedOnceTheTwoIdsAreSet() throws {
        let file = Self.repository.appendingPathComponent("examples/config.yml")
        let shipped = try AgentConfiguration.load(file: file, environment: [:])
        #expect(shipped.tenant == nil && shipped.clientID == nil)
        #expect(throws: ConfigurationError("no tenant: set 'tenant' in this file, pass --tenant, or set TOPHHIE_TENANT", file: file.path)) { try shipped.authConfiguration() }
        #expect(shipped.pollInterval == 300)
        #expect(shipped.lookback == 86_400)
        #expect(shipped.retentionDays == 30)
        #expect(shipped.notifiers.map(\.name) == ["console"])
        let factory = NotifierFactory(environment: [:], outputIsTerminal: false)
        _ = try factory.make(shipped.notifiers[0])

        let text = try String(contentsOf: file, encoding: .utf8)
            .replacingOccurrences(of: "\ntenant:\n", with: "\ntenant: contoso.onmicrosoft.com\n")
            .replacingOccurrences(of: "\nclient_id:\n", with: "\nclient_id: 5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c\n")
        let set = try AgentConfiguration.parse(text, file: file.path, baseDirectory: file.deletingLastPathComponent(), environment: [:])
        #expect(try set.authConfiguration().tenant == "contoso.onmicrosoft.com")
    }

    /// The example's commented accounts read once uncommented (issue 49).
    @Test func theExamplesCommentedAccountsRead() throws {
        let file = Self.repository.appendingPathComponent("examples/config.yml")
        let text = try String(contentsOf: file, encoding: .utf8)
        var inAccounts = false
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if line == "# accounts:" { inAccounts = true }
            guard inAccounts, line.hasPrefix("# ") else { inAccounts = false; return String(line) }
            return String(line.dropFirst(2))
        }.joined(separator: "\n")
        let configuration = try AgentConfiguration.parse(uncommented, file: file.path, baseDirectory: file.deletingLastPathComponent(), environment: [:])
        #expect(configuration.accountNames == ["jane", "sam"])
        #expect(configuration.everyAccount().map(\.tenant) == [nil, "fabrikam.onmicrosoft.com"])
        #expect(configuration.everyAccount().map { $0.notifiers.map(\.name) } == [["console"], ["console"]])
    }

    /// Every commented notifier of the example reads once uncommented.
    @Test func theExamplesCommentedNotifiersRead() throws {
        let file = Self.repository.appendingPathComponent("examples/config.yml")
        let text = try String(contentsOf: file, encoding: .utf8)
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.hasPrefix("  # ") && (line.hasPrefix("  # - ") || line.hasPrefix("  #   ")) else { return String(line) }
            return "  " + line.dropFirst(4)
        }.joined(separator: "\n")
        let configuration = try AgentConfiguration.parse(uncommented, file: file.path, baseDirectory: file.deletingLastPathComponent(), environment: [:])
        #expect(configuration.notifiers.map(\.name) == ["console", "local-syslog", "siem", "hook", "pager", "phone", "gotify", "telegram", "mail"])
        #expect(configuration.notifiers.suffix(4).map(\.type) == ["webhook", "webhook", "webhook", "email"])
        // The four as the issue gives them: with their tokens set, each loads.
        let factory = NotifierFactory(environment: ["GOTIFY_TOKEN": "AbCdEf", "TELEGRAM_BOT_TOKEN": "123456:ABC"], outputIsTerminal: false)
        for entry in configuration.notifiers.suffix(4) { _ = try factory.make(entry) }
        #expect(configuration.notifiers[1].minimumLevel == .low)
        // The webhook's secret file does not exist here: the error names the entry, not a secret.
        do {
            _ = try NotifierFactory(environment: [:], outputIsTerminal: false).make(configuration.notifiers[3])
            Issue.record("a missing secret file was accepted")
        } catch let error as ConfigurationError {
            #expect(error.description.hasPrefix("\(file.path):"))
            #expect(error.message.contains("cannot read secret_file"))
        }
    }

    @Test(arguments: [
        ("tenant: contoso.onmicrosoft.com\nbogus: 1\n", "cfg.yml:2:1: error: unknown key 'bogus'; known keys: accounts, authority, client_id, delivery, graph, graph_url, health, notifiers, poll, retention_days, rules, state_dir, tenant"),
        ("delivery:\n  failing_after: 1m\n", "cfg.yml:2:18: error: delivery.failing_after must be at least 5m: a receiver's short restart is not news"),
        ("delivery:\n  budgit: 30s\n", "cfg.yml:2:3: error: unknown key 'delivery.budgit'; known: failing_after, budget"),
        ("graph:\n  api: v2\n", "cfg.yml:2:8: error: graph.api must be beta (interactive and non-interactive sign-ins) or v1.0 (interactive only), not 'v2'"),
        ("health:\n  heartbeat: https://hc.example/x\n", "cfg.yml:2:3: error: unknown key 'health.heartbeat'; known: heartbeat_url, heartbeat_fail_url, metrics_file"),
        ("health:\n  heartbeat_fail_url: https://hc.example/x/fail\n", "cfg.yml:2:3: error: health.heartbeat_fail_url needs health.heartbeat_url beside it"),
        ("health:\n  heartbeat_url: ftp://hc.example/x\n", "cfg.yml:2:18: error: 'health.heartbeat_url' must be an http(s) URL (https except to loopback), not 'ftp://hc.example/x'"),
        ("poll:\n  interval: 10s\n", "cfg.yml:2:13: error: poll.interval must be at least 1m: the sign-in log API allows about 5 requests per 10 s per app and tenant"),
        ("poll:\n  lookback: soon\n", "cfg.yml:2:13: error: 'poll.lookback' must be a duration such as 90s, 5m, 24h or 7d, not 'soon'"),
        ("notifiers:\n  - type: pager\n", "cfg.yml:2:5: error: unknown notifier type 'pager'; use stdout, syslog, webhook or email"),
        ("notifiers:\n  - type: stdout\n  - type: stdout\n", "cfg.yml:3:5: error: two notifiers are named 'stdout'; give each a unique 'name'"),
        ("notifiers:\n  - type: stdout\n    min_level: severe\n", "cfg.yml:3:16: error: min_level must be one of informational, low, medium, high, critical, not 'severe'"),
        ("notifiers:\n  - {type: stdout, name: a.settled}\n", "cfg.yml:2:5: error: notifier name 'a.settled' may not end in .settled, .dead or .status (the outbox uses those names)"),
        ("notifiers:\n  - {type: stdout, name: .hidden}\n", "cfg.yml:2:5: error: notifier name '.hidden' may use letters, digits, '.', '_' and '-' only, and may not start with '.' (it names a file)"),
        ("graph_url: ftp://x\n", "cfg.yml:1:12: error: 'graph_url' must be an http(s) URL (https except to loopback), not 'ftp://x'"),
        ("tenant: [a\n", "cfg.yml:1:9: error: unterminated flow sequence: missing ']'"),
        ("tenant: ../../evil\n", "cfg.yml:1:9: error: the tenant '../../evil' is neither a tenant id (a GUID such as 72f988bf-86f1-41af-91ab-2d7cd011db47) nor a domain name (contoso.onmicrosoft.com)"),
        ("client_id: not a guid\n", "cfg.yml:1:12: error: the client id 'not a guid' is not an application (client) id, a GUID such as 5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c: copy it from the app registration's Overview page"),
    ])
    func errorsPointAtTheLine(text: String, message: String) {
        do {
            _ = try AgentConfiguration.parse(text, file: "cfg.yml", baseDirectory: URL(fileURLWithPath: "/tmp"), environment: [:])
            Issue.record("accepted: \(text)")
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test func secretsComeFromTheEnvironmentAndNeverShow() throws {
        let text = """
        notifiers:
          - name: hook
            type: webhook
            url: http://127.0.0.1:9/x
            secret_env: HOOK_SECRET
        """
        let configuration = try AgentConfiguration.parse(text, file: "cfg.yml", baseDirectory: URL(fileURLWithPath: "/tmp"), environment: [:])
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        let notifier = try NotifierFactory(environment: ["HOOK_SECRET": secret], outputIsTerminal: false).make(configuration.notifiers[0]).0
        #expect(!String(describing: notifier).contains("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        do {
            _ = try NotifierFactory(environment: [:], outputIsTerminal: false).make(configuration.notifiers[0])
            Issue.record("a missing variable was accepted")
        } catch let error as ConfigurationError {
            #expect(error.description == "cfg.yml:2:5: error: notifier 'hook': the environment variable HOOK_SECRET named by secret_env is not set")
        }
    }

    /// `builtin:rules` names the pack built in, in a config as on the command line: it is not
    /// a folder beside the config.
    @Test func theBuiltInPackIsNamedInAConfig() throws {
        let base = URL(fileURLWithPath: "/etc/tophhie-watch")
        let configuration = try AgentConfiguration.parse("rules: [builtin:rules, mine]\n", file: "cfg.yml", baseDirectory: base, environment: [:])
        #expect(configuration.rulePaths == ["builtin:rules", "/etc/tophhie-watch/mine"])
        let sources = try RuleSource.read(paths: Array(configuration.rulePaths.prefix(1)))
        #expect(sources.count > 10, "the pack is read from the path the config gave")
    }
}
