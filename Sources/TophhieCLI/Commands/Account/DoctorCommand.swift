import Foundation
import TophhieAuth
import TophhieJSON
import TophhieAgent
import TophhieSystem

/// `doctor`: checks each gate between you and your sign-in log, in order, and says how to fix the first that fails.
enum DoctorCommand: CLICommand {
    struct Options: OptionGroup {
        var connection = ConnectionOptions()
        var rules = ConnectionOptions.rules
        var json: Option<Bool> = .flag("json", help: "print the checks as one JSON object")
    }

    static let about = CommandAbout(
        path: ["doctor"],
        summary: "Check configuration, rules, notifiers, token, scopes, /me, licence, role and consent, and say what to fix",
        discussion: """
        Checks, in order: the configuration; the rules (they load, without errors); each notifier
        (its options, secret and token files, https except to loopback, an email notifier's
        sendmail present and executable); the token cache (present, mode 0600); a silent token
        refresh; the granted scopes; GET /me; and one sign-in log request, whose answer tells the
        tenant licence (P1/P2), the reporting role and admin consent apart. It stops at the
        first check that fails and says how to fix it.

        Exit code 0 when every check passes, 2 when the configuration, rules or a notifier is
        wrong, 3 when a sign-in is needed, 4 when Graph refuses access, 1 for other failures.

        examples:
          tophhie-watch doctor
          tophhie-watch doctor --json | jq -r '.checks[] | select(.status != "ok") | .fix'
        """)

    /// One check's outcome, as printed and as `--json` gives it.
    struct Check {
        var status: String
        var text: String
        var fix: String?
    }

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let json = options.json
        var checks: [Check] = []
        let code = try await check(options, io: io) { checks.append($0) }
        if json {
            let list = checks.map { check -> JSONValue in
                var object: [String: JSONValue] = ["status": .string(check.status), "check": .string(String(check.text.prefix { $0 != ":" })), "detail": .string(check.text)]
                if let fix = check.fix { object["fix"] = .string(fix) }
                return .object(object)
            }
            io.out(String(decoding: JSONValue.object(["exitCode": .int(Int64(code.rawValue)), "checks": .array(list)]).canonicalData(), as: UTF8.self) + "\n")
        } else {
            io.out("tophhie-watch doctor\n")
            let colour = TerminalColour(io)
            for check in checks {
                let label = check.status == "ok" ? colour.green("ok  ") : check.status == "warn" ? colour.yellow("warn") : colour.red("FAIL")
                io.out("  \(label)  \(check.text)\n" + (check.fix.map { "        fix: \($0)\n" } ?? ""))
            }
            if code == .ok { io.out(colour.green("All checks passed.") + "\n") }
        }
        return code
    }

    static func check(_ options: ParsedOptions<Options>, io: CommandIO, record: (Check) -> Void) async throws -> ExitCode {
        func pass(_ text: String) { record(Check(status: "ok", text: text)) }
        func fail(_ text: String, fix: String) { record(Check(status: "fail", text: text, fix: fix)) }
        func warn(_ text: String) { record(Check(status: "warn", text: text)) }

        let configuration: TophhieConfiguration
        let agentConfiguration: AgentConfiguration
        do {
            agentConfiguration = try ConnectionOptions.agentConfiguration(options.connection, rules: options.rules, io: io)
            configuration = try agentConfiguration.authConfiguration()
            pass("configuration: tenant \(configuration.tenant), client \(configuration.clientID), authority \(configuration.authority.absoluteString), Graph \(configuration.graphBaseURL.absoluteString)")
        } catch {
            fail("configuration: \(ErrorReport.describe(error).0)", fix: "set tenant and client_id in the config file, or pass --tenant and --client-id")
            return .usage
        }
        let environment = AgentSetup.Environment(variables: io.environment, outputIsTerminal: false, clock: io.clock, transport: io.transport)
        let rulePaths = AgentSetup.rulePaths(agentConfiguration, environment: environment)
        do {
            let rules = try AgentSetup.loadRules(agentConfiguration, environment: environment)
            pass("rules: \(rules.ruleCount) rules from \(AgentSetup.describe(rulePaths: rulePaths))")
            for note in rules.diagnostics where note.severity == .warning { warn("rules: \(note)") }
        } catch {
            fail("rules: \(error)", fix: "point 'rules:' in the config file, --rules or TOPHHIE_RULES at a folder of rule files (an installed agent has them in /usr/local/share/tophhie-watch/rules)")
            return .usage
        }
        let factory = NotifierFactory(environment: io.environment, outputIsTerminal: false, write: { _ in }, transport: io.transport)
        if agentConfiguration.notifiers.isEmpty { pass("notifiers: none configured; alerts go to standard output") }
        for entry in agentConfiguration.notifiers {
            do {
                let notifier = try factory.make(entry).0
                if let why = NotifierFactory.preflight(notifier) {
                    fail("notifier \(entry.name) (\(entry.type)): \(why)", fix: "install a sendmail or fix 'sendmail' in the config file, then 'tophhie-watch notify test --notifier \(entry.name)'")
                    return .usage
                }
                // The socket as the factory read it from the entry: its transport and address
                // are not read again here by name.
                if let syslog = notifier as? SyslogNotifier, case .unixDatagram(let path) = syslog.settings.transport {
                    do {
                        try await BlockingWork.shared.run { try OutgoingSocket.checkUnixDatagram(path: path) }
                    } catch {
                        fail("notifier \(entry.name) (syslog): nothing receives at \(path) (\(error))", fix: "start the system logger (rsyslog, or systemd-journald's /dev/log), or point 'address' at the socket it listens on")
                        return .usage
                    }
                }
                pass("notifier \(entry.name) (\(entry.type)): options and secrets readable" + (NotifierFactory.describe(notifier).map { "; " + $0 } ?? ""))
                for warning in factory.warnings(entry) { warn(warning) }
            } catch {
                fail("notifier \(entry.name) (\(entry.type)): \(error)", fix: "fix the entry in the config file; 'tophhie-watch notify test --notifier \(entry.name)' sends a sample once it loads")
                return .usage
            }
        }
        let auth = TophhieAuth(configuration: configuration, transport: io.transport, clock: io.clock)
        let cache = TokenCache(file: configuration.stateDirectory.appendingPathComponent("tokens.json"))
        let session: CachedSession
        do {
            guard let cached = try await auth.currentSession() else {
                fail("token cache: nobody is signed in (\(cache.file.path) does not exist)", fix: "run 'tophhie-watch login'")
                return .signInNeeded
            }
            session = cached
        } catch {
            fail("token cache: \(ErrorReport.describe(error).0)", fix: "run 'tophhie-watch logout' then 'tophhie-watch login'")
            return .failure
        }
        if let mode = cache.fileMode, mode & 0o077 != 0 {
            fail("token cache: \(cache.file.path) has mode \(String(mode, radix: 8)); others can read your refresh token", fix: "chmod 600 \(cache.file.path)")
            return .failure
        }
        pass("token cache: \(cache.file.path) (mode 0600), signed in as \(session.userPrincipalName ?? "unknown")")

        do {
            try await auth.verifyToken(covering: session.grantedScopes.contains { TophhieScopes.covers([$0], TophhieScopes.userRead) } ? TophhieScopes.userRead : (session.grantedScopes.first { $0.contains(".") } ?? TophhieScopes.userRead))
            pass("token: a silent refresh works")
        } catch let error as TophhieAuthError {
            if case .interactionRequired(let reason) = error {
                fail("token: \(reason)", fix: "run 'tophhie-watch login'")
                return .signInNeeded
            }
            fail("token: \(error.localizedDescription)", fix: "check the network and the authority URL, then run 'tophhie-watch doctor' again")
            return .failure
        }

        var missing: [String] = []
        for scope in [TophhieScopes.userRead, TophhieScopes.auditLogRead] where !TophhieScopes.covers(session.grantedScopes, scope) {
            missing.append(scope)
        }
        if missing.isEmpty {
            pass("scopes: \(session.grantedScopes.joined(separator: " "))")
        } else {
            fail("scopes: not granted: \(missing.joined(separator: ", "))", fix: "run 'tophhie-watch login --scopes profile,history'; AuditLog.Read.All needs admin consent on the app registration")
            return .signInNeeded
        }
        if !TophhieScopes.covers(session.grantedScopes, TophhieScopes.directoryRead) {
            warn("scopes: Directory.Read.All not granted; Microsoft documents it beside AuditLog.Read.All for reading sign-ins, and without it some P1 tenants refuse the licence check now and then (the agent confirms a licence refusal over three polls before it tells you)")
        }
        if !TophhieScopes.covers(session.grantedScopes, TophhieScopes.userReadWrite) {
            warn("scopes: User.ReadWrite not granted; 'profile set' will ask for 'login --scopes profile-edit'")
        }

        do {
            let profile = try await auth.getUserProfile()
            pass("GET /me: \(profile.userPrincipalName) (object id \(profile.id))")
        } catch let error as TophhieAuthError {
            fail("GET /me: \(error.localizedDescription)", fix: error.accessGate == nil ? "see the message above" : "grant admin consent for User.Read")
            return error.accessGate == nil ? .failure : .accessDenied
        }

        do {
            let events = try await auth.getSignInHistory(top: 1)
            pass("sign-in log: readable (licence, role and consent are in place); \(events.isEmpty ? "no sign-ins in the retention window yet" : "newest sign-in \(GraphTimestamp.filterText(events[0].createdDateTime))")")
        } catch let error as TophhieAuthError {
            let check: String
            switch error.accessGate {
            case .licence?: check = "licence"
            case .role?: check = "role"
            case .consent?, .permissionMissing?: check = "consent"
            default: check = "sign-in log"
            }
            fail("\(check): \(error.localizedDescription)", fix: error.accessGate?.explanation ?? "see the message above")
            return error.accessGate == nil ? .failure : .accessDenied
        }
        await checkStreams(auth, io: io, warn: warn, pass: pass)
        return .ok
    }

    /// Whether Graph beta gives both streams, and what it costs when it does not.
    static func checkStreams(_ auth: TophhieAuth, io: CommandIO, warn: (String) -> Void, pass: (String) -> Void) async {
        guard auth.configuration.signInAPI == .beta else {
            warn("streams: graph.api is v1.0, so only interactive sign-ins are watched: a stolen refresh token or session cookie and a device-code phishing victim's token are used in the non-interactive stream, which v1.0 does not have, and the rules device-code-sign-in, token-from-new-place, mfa-denied-by-user, ropc-or-legacy-agent and single-factor-from-new-place cannot fire; set graph.api: beta")
            return
        }
        let since = io.clock.now().addingTimeInterval(-86_400)
        do {
            let fetch = try await auth.fetchSignIns([SignInRead(stream: .nonInteractive, notBefore: since, pageLimit: 1)], api: .beta)
            if let refusal = fetch.fallback {
                warn("streams: Graph refused the beta sign-in log or its non-interactive filter (\(refusal.reason)); the agent reads v1.0's interactive sign-ins instead and tells you once. What that costs: a stolen refresh token or session cookie and a device-code phishing victim's token are used in the non-interactive stream, which is not watched, and the rules device-code-sign-in, token-from-new-place, mfa-denied-by-user, ropc-or-legacy-agent and single-factor-from-new-place cannot fire. A tenant or proxy that blocks Graph beta is the usual cause; the agent asks beta again once a day")
            } else {
                pass("streams: interactive and non-interactive sign-ins readable from Graph beta")
            }
        } catch let error as TophhieAuthError {
            warn("streams: the non-interactive sign-ins could not be read: \(error.localizedDescription)")
        } catch {
            warn("streams: the non-interactive sign-ins could not be read: \(error)")
        }
    }
}

