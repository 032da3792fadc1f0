import Foundation
import TophhieAuth
import TophhieAgent
import TophhieJSON
import TophhieSystem

/// `status`: the session, the last poll, the standing problem and each outbox; read-only, never a token.
enum StatusCommand: CLICommand {
    struct Options: OptionGroup {
        var connection = ConnectionOptions()
        var json: Option<Bool> = .flag("json", help: "print it all as one JSON object")
    }

    static let about = CommandAbout(
        path: ["status"],
        summary: "Show who is signed in, the granted scopes, the last poll, problems and outboxes",
        discussion: """
        Reads the token cache, the agent state and the outboxes only: no network, no lock, nothing
        written, so it is safe beside a running agent. Tokens are never printed. Exits 2 when the
        state directory or its state is unusable, else 3 when nobody is signed in.

        examples:
          tophhie-watch status
          tophhie-watch status --json | jq .agent.lastSuccessfulPoll
        """)

    /// What `status` reads of one account: its session, its agent state and its last revocation.
    struct AccountStatus {
        var configuration: AgentConfiguration
        var auth: TophhieConfiguration
        var session: CachedSession?
        var health: AgentHealth
        var cache: TokenCache
        var lastRevocation: SessionRevocation?

        /// 2 when the state directory or its state is unusable, else 3 when nobody is signed in.
        var exitCode: ExitCode { health.stateError != nil ? .usage : session == nil ? .signInNeeded : .ok }

        static func read(_ agentConfiguration: AgentConfiguration, io: CommandIO) async throws -> AccountStatus {
            let configuration = try agentConfiguration.authConfiguration()
            let auth = TophhieAuth(configuration: configuration, transport: io.transport, clock: io.clock)
            let session = try await auth.currentSession()
            var health = await AgentHealth.read(stateDirectory: agentConfiguration.stateDirectory, notifiers: agentConfiguration.notifiers.map(\.name), api: agentConfiguration.signInAPI, planner: AgentSetup.planner(agentConfiguration))
            // A state directory that is not one (a file in its place) is unusable as a damaged state is.
            if health.stateError == nil, let problem = unusableDirectory(agentConfiguration.stateDirectory.path) { health.stateError = problem }
            let stateDirectory = agentConfiguration.stateDirectory
            let lastRevocation = try await BlockingWork.shared.run { SessionRevocation.read(stateDirectory: stateDirectory) }
            return AccountStatus(configuration: agentConfiguration, auth: configuration, session: session, health: health, cache: TokenCache(file: configuration.stateDirectory.appendingPathComponent("tokens.json")), lastRevocation: lastRevocation)
        }

        /// The session, the agent and the last revocation, as `status --json` gives them.
        var jsonMembers: [String: JSONValue] {
            func time(_ date: Date?) -> JSONValue { date.map { .string(GraphTimestamp.alertText($0)) } ?? .null }
            let sessionValue: JSONValue = session.map { session in
                .object([
                    "userPrincipalName": session.userPrincipalName.map(JSONValue.string) ?? .null,
                    "objectId": session.objectID.map(JSONValue.string) ?? .null,
                    "tenant": .string(auth.tenant),
                    "scopes": .array(session.grantedScopes.map(JSONValue.string)),
                    "accessTokenExpiresAt": time(session.accessTokenExpiresAt),
                    "signedInAt": time(session.signedInAt),
                    "refreshedAt": time(session.refreshedAt),
                    "tokenCache": .string(cache.file.path),
                ])
            } ?? .null
            let revoked = lastRevocation.map { revocation -> JSONValue in
                .object(["at": time(revocation.at), "alertId": revocation.alertID.map(JSONValue.string) ?? .null])
            } ?? .null
            return ["session": sessionValue, "agent": health.jsonValue, "sessionsRevoked": revoked]
        }
    }

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let watched = try ConnectionOptions.watchedConfiguration(options.connection, io: io)
        var accounts: [AccountStatus] = []
        for account in watched.everyAccount() { accounts.append(try await AccountStatus.read(account, io: io)) }
        let code = ExitCode.mostSerious(accounts.map(\.exitCode))
        let rulePaths = AgentSetup.rulePaths(watched, environment: .init(variables: io.environment))
        if options.json {
            let search = watched.search
            let config: JSONValue = .object([
                "file": search?.foundPath.map(JSONValue.string) ?? .null,
                "chosenBy": search?.foundPath == nil ? .null : .string(search?.chosenBy ?? ""),
                "looked": .array((search?.looked ?? []).map(JSONValue.string)),
            ])
            var members: [String: JSONValue] = ["config": config, "rules": .array(rulePaths.map(JSONValue.string))]
            if let fit = watched.graphBudgetFit() {
                members["graphBudget"] = .array(fit.tenants.map { tenant in
                    .object(["tenant": .string(tenant.key.tenant), "clientId": .string(tenant.key.clientID), "accounts": .int(Int64(tenant.accounts)),
                             "requestsPerCycle": .int(Int64(tenant.requestsPerCycle)), "allowedPerCycle": .int(Int64(tenant.allowedPerCycle)),
                             "intervalSeconds": .int(Int64(fit.interval))])
                })
            }
            if watched.namesAccounts {
                members["accounts"] = .array(accounts.map { account in
                    var entry = account.jsonMembers
                    entry["name"] = .string(account.configuration.account ?? AccountConfiguration.defaultName)
                    entry["stateDirectory"] = .string(account.configuration.stateDirectory.path)
                    return .object(entry)
                })
            } else {
                members.merge(accounts[0].jsonMembers) { $1 }
            }
            io.out(JSONValue.object(members).prettyText() + "\n")
            return code
        }
        if let search = watched.search { io.out("Config:        \(search.description)\n") }
        io.out("Rules:         \(AgentSetup.describe(rulePaths: rulePaths))\n")
        if let fit = watched.graphBudgetFit() {
            // The steady state: a poll with nothing new. First polls and sweeps wait for room.
            for tenant in fit.tenants {
                let line = "\(fit.statusLine(for: tenant.key) ?? "") (\(tenant.accounts) account\(tenant.accounts == 1 ? "" : "s"), \(watched.steadyRequestsPerPoll) requests a poll with nothing new)"
                io.out("Graph budget:  \(tenant.fits ? line : TerminalColour(io).red(line + ": over the budget"))\n")
            }
        }
        for account in accounts {
            if let name = account.configuration.account {
                io.out("\n" + TerminalColour(io).bold("Account \(name)") + " (\(account.configuration.stateDirectory.path))\n")
            }
            printAccount(account, io: io)
        }
        return code
    }

    /// One account's session and agent, as the text form shows them.
    static func printAccount(_ account: AccountStatus, io: CommandIO) {
        let login = account.configuration.account.map { "tophhie-watch login --account \($0)" } ?? "tophhie-watch login"
        if let revoked = account.lastRevocation {
            let stale = account.session.map { $0.signedInAt <= revoked.at } ?? true
            io.out("Sessions:      all revoked at \(GraphTimestamp.alertText(revoked.at))\(revoked.alertID.map { " after alert \($0)" } ?? "")\(stale ? "; this agent must sign in again ('\(login)')" : "; signed in again since")\n")
        }
        guard let session = account.session else {
            io.out(TerminalColour(io).yellow("Not signed in.") + " Run '\(login)'.\n")
            printAgent(account.health, io: io)
            return
        }
        let configuration = account.auth
        io.out("User:          \(session.userPrincipalName ?? "unknown (profile not read yet)")\n")
        io.out("Object id:     \(session.objectID ?? "unknown")\n")
        io.out("Tenant:        \(configuration.tenant) via \(configuration.authority.absoluteString)\n")
        io.out("Scopes:        \(session.grantedScopes.joined(separator: " "))\n")
        let now = io.clock.now()
        if let expiry = session.accessTokenExpiresAt {
            let left = expiry.timeIntervalSince(now)
            io.out("Access token:  \(left > 0 ? "valid for \(Int(left / 60)) more minutes" : "expired (refreshed on next use)") (\(GraphTimestamp.filterText(expiry)))\n")
        }
        io.out("Signed in:     \(GraphTimestamp.filterText(session.signedInAt))\(session.refreshedAt.map { ", last refreshed \(GraphTimestamp.filterText($0))" } ?? "")\n")
        io.out("Token cache:   \(account.cache.file.path) (mode \(account.cache.fileMode.map { String($0, radix: 8) } ?? "?"))\n")
        printAgent(account.health, io: io)
    }

    /// Why `path` cannot be a state directory, when it exists and cannot: nil when it is one
    /// (or does not exist yet: the first login makes it).
    static func unusableDirectory(_ path: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        guard isDirectory.boolValue else { return "\(path) is not a directory" }
        guard FileManager.default.isWritableFile(atPath: path) else { return "\(path) cannot be written" }
        return nil
    }

    /// "2026-12-06 14:05 UTC": a forecast is good to the minute.
    static func minuteText(_ date: Date) -> String {
        let text = GraphTimestamp.filterText(date)
        return text.prefix(16).replacingOccurrences(of: "T", with: " ") + " UTC"
    }

    static func printAgent(_ health: AgentHealth, io: CommandIO) {
        let colour = TerminalColour(io)
        if let error = health.stateError {
            io.out("Agent state:   \(colour.red("UNUSABLE")): \(error)\n")
        } else {
            io.out("Last poll:     \(health.lastSuccessfulPoll.map { colour.green("\(GraphTimestamp.filterText($0)) (successful)") } ?? colour.yellow("never"))\n")
        }
        if let learning = health.placeLearning { io.out("Learning:      \(colour.yellow(learning))\n") }
        let watched = health.streams.map(\.words).joined(separator: " and ")
        if let fallback = health.fallback {
            io.out("Streams:       \(watched) only (Graph v1.0): Graph refused beta since \(GraphTimestamp.filterText(fallback.since)) (\(fallback.refusal.reason)); non-interactive sign-ins are not watched ('tophhie-watch doctor')\n")
        } else {
            io.out("Streams:       \(watched) sign-ins (Graph \(health.streams.count > 1 ? "beta" : "v1.0"))\n")
        }
        for (stream, cursor) in health.rereads.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            // How far the walk below the recent reads has come, and what that means for a late sign-in.
            let walk: String
            if let upper = cursor.upper, let floor = cursor.floor {
                walk = "at \(GraphTimestamp.filterText(upper)), walking down to \(GraphTimestamp.filterText(floor))"
            } else {
                walk = "starts again from the top next poll"
            }
            let sweep: String
            if let swept = health.sweeps[stream], let upper = swept.upper, let floor = swept.floor {
                sweep = "; the sweep to the retention floor is at \(GraphTimestamp.filterText(upper)), down to \(GraphTimestamp.filterText(floor))\(swept.lastSweep.map { " (started after \(GraphTimestamp.filterText($0)))" } ?? "")"
            } else if let last = health.sweeps[stream]?.lastSweep ?? cursor.lastSweep {
                sweep = "; last sweep to the retention floor started \(GraphTimestamp.filterText(last))"
            } else {
                sweep = ""
            }
            io.out("Re-read \(stream.words): \(walk)\(sweep)\n")
            if let forecast = health.forecasts[stream] {
                io.out("Late \(stream.words): \(forecast.sentence(time: minuteText))\n")
            }
        }
        for (stream, failing) in health.failingStreams.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let wait = failing.retryAfter.map { ", Graph asked to wait until \(GraphTimestamp.filterText($0)) (Retry-After)" } ?? ""
            io.out("Stream \(stream.words): not read since \(GraphTimestamp.filterText(failing.failingSince))\(wait); next read from \(GraphTimestamp.filterText(failing.readFrom)): \(failing.lastError)\n")
        }
        if let problem = health.problem {
            io.out("\(colour.red("Problem:"))       \(problem.kind) since \(GraphTimestamp.filterText(problem.since))\(problem.notified ? ", notice sent" : ""): \(problem.detail)\n")
        }
        for channel in health.notifiers {
            var parts = ["\(channel.pending) pending", "\(channel.deadLettered) dead-lettered"]
            if let disabled = channel.disabled { parts.append("\(colour.red("DISABLED")) by its receiver since \(GraphTimestamp.filterText(disabled.since)) ('tophhie-watch outbox enable \(channel.name)' once fixed)") }
            if let wait = channel.retryAfter { parts.append("waiting until \(GraphTimestamp.filterText(wait)) (Retry-After)") }
            if let error = channel.error { parts.append("unreadable: \(error)") }
            io.out("Outbox \(channel.name): \(parts.joined(separator: ", "))\n")
        }
    }
}
