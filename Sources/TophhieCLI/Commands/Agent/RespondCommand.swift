import Foundation
import TophhieAuth
import TophhieAgent
import TophhieJSON
import TophhieSystem
import TophhieRules

/// `respond`: what to do about an alert that means the account may be in someone else's hands,
/// and the one thing the agent can do itself: revoke every session of the account.
enum RespondCommand: CLICommand {
    struct Options: OptionGroup {
        var connection = ConnectionOptions()
        var revokeSessions: Option<Bool> = .flag("revoke-sessions", help: "revoke every refresh token and browser session of the signed-in account (POST /me/revokeSignInSessions)")
        var yes: Option<Bool> = .flag("yes", help: "do not ask before revoking (for scripts)")
        var alert: Option<String?> = .text("alert", value: "ID", help: "the alert that prompted it, recorded with the revocation (default: the newest high alert)")
    }

    static let about = CommandAbout(
        path: ["respond"],
        summary: "Say what to do about the newest high alerts; --revoke-sessions signs the account out everywhere",
        discussion: """
        Without --revoke-sessions, lists the newest high and critical alerts the agent raised
        and the steps, in order. With it, revokes every refresh token and browser session of
        the signed-in account, as Microsoft advises for a lost or stolen device: whoever holds a
        stolen token is signed out. It needs the delegated permission User.RevokeSessions.All
        with admin consent ('tophhie-watch login --scopes respond').

        Revoking signs this agent out too: the revocation is recorded in the state directory,
        a 'sessions-revoked' notice goes to every notifier, and every poll says sign-in needed
        (exit 3) until 'tophhie-watch login' is run again. Without --yes it asks first, on a
        terminal; with no terminal to ask on, --yes is required.

        Exit status: 0 when done, 2 without --yes and no terminal, 3 when a sign-in is needed,
        4 when Graph refuses (no consent), 1 for other failures.

        examples:
          tophhie-watch respond
          tophhie-watch respond --revoke-sessions
          tophhie-watch respond --revoke-sessions --yes --alert 1e06e1fc0c30e55ca0bcc6db404dd98a
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let configuration = try ConnectionOptions.agentConfiguration(options.connection, io: io)
        let stateDirectory = configuration.stateDirectory
        // Files read on the blocking pool, not Swift's cooperative one.
        let state = try? await BlockingWork.shared.run { try StateStore(stateDirectory: stateDirectory).load() }
        let lastRevocation = try await BlockingWork.shared.run { SessionRevocation.read(stateDirectory: stateDirectory) }
        let recent = (state?.recentHighAlerts ?? []).reversed()
        guard options.revokeSessions else {
            if recent.isEmpty {
                io.out("No high or critical alert has been raised in this state directory.\n")
            } else {
                io.out("The newest high and critical alerts:\n")
                for alert in recent.prefix(10) {
                    // The state keeps the engine's ids; the notifiers showed them with the account's name.
                    let id = configuration.account.map { Alert.accountID(alert.id, account: $0) } ?? alert.id
                    io.out("  \(GraphTimestamp.alertText(alert.detectedAt))  \(id)  [\(ControlCharacterEscaping.escape(alert.rule))] \(ControlCharacterEscaping.escape(alert.summary))\n")
                }
            }
            io.out("If one is not you, in this order:\n")
            for (index, step) in AlertResponse.steps.enumerated() { io.out("  \(index + 1). \(step)\n") }
            if let revoked = lastRevocation {
                io.out("Sessions were last revoked at \(GraphTimestamp.alertText(revoked.at))\(revoked.alertID.map { " after alert \($0)" } ?? "").\n")
            }
            return .ok
        }
        let auth = TophhieAuth(configuration: try configuration.authConfiguration(), transport: io.transport, clock: io.clock)
        guard let session = try await auth.currentSession() else {
            throw TophhieAuthError.interactionRequired(reason: "nobody is signed in")
        }
        // A permission the app was never granted is a refusal of access (exit 4), as Graph's 403
        // would be: signing in again does not help until an administrator consents.
        guard TophhieScopes.covers(session.grantedScopes, TophhieScopes.revokeSessions) else {
            throw TophhieAuthError.sessionRevocation(status: 403, graphCode: "Authorization_RequestDenied")
        }
        if !options.yes {
            guard let answer = io.readAnswer else {
                throw UsageError("revoking signs \(session.userPrincipalName ?? "the account") out everywhere; pass --yes to do it without a terminal to ask on")
            }
            io.err("Revoke every session of \(session.userPrincipalName ?? "the signed-in account")? Every device and app, this agent included, must sign in again. Type yes: ")
            // Waiting for a person blocks its thread: the blocking pool's, not Swift's.
            let typed = try await BlockingWork.shared.run { answer() }
            guard typed?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
                io.err("Nothing was revoked.\n")
                return .failure
            }
        }
        try await auth.revokeSignInSessions()
        let revocation = SessionRevocation(at: io.clock.now(), alertID: options.alert ?? recent.first?.id)
        try await BlockingWork.shared.run { try revocation.write(stateDirectory: configuration.stateDirectory) }
        io.out("Revoked every session of \(session.userPrincipalName ?? "the signed-in account") at \(GraphTimestamp.alertText(revocation.at)). This agent is signed out too: run '\(configuration.account.map { "tophhie-watch login --account \($0)" } ?? "tophhie-watch login")' to watch again.\n")
        io.out("Next:\n")
        for (index, step) in AlertResponse.steps.dropFirst().enumerated() { io.out("  \(index + 1). \(step)\n") }
        // Tell the notifiers now when no agent holds the state directory; a running one tells
        // them on its next cycle (it reads the revocation every poll).
        if let lock = try? StateDirectoryLock.acquire(stateDirectory: configuration.stateDirectory) {
            defer { lock.release() }
            let setup = try AgentSetup.build(configuration, environment: .init(variables: io.environment, outputIsTerminal: io.outIsTerminal, write: io.alertOut, clock: io.clock, transport: io.transport))
            _ = try? await setup.cycle.run(now: io.clock.now())
        } else {
            io.out("The running agent tells the notifiers on its next poll.\n")
        }
        return .ok
    }
}
