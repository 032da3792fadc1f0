import Foundation
import TophhieAuth
import TophhieJSON

/// `doctor`: checks each gate between you and your sign-in log, in order, and says how to fix the first that fails.
enum DoctorCommand: CLICommand {
    static let spec = CommandSpec(
        path: ["doctor"],
        summary: "Check configuration, token, scopes, /me, licence, role and consent, and say what to fix",
        options: ConnectionOptions.specs,
        discussion: """
        Checks, in order: the configuration; the token cache (present, mode 0600); a silent token
        refresh; the granted scopes; GET /me; and one sign-in log request, whose answer tells the
        tenant licence (P1/P2), the reporting role and admin consent apart.

        Exit code 0 when every check passes, 3 when a sign-in is needed, 4 when Graph refuses
        access, 1 for other failures.

        example:
          tophhie-watch doctor
        """)

    static func run(_ arguments: ParsedArguments, io: CommandIO) async throws -> ExitCode {
        func pass(_ text: String) { io.out("  ok    \(text)\n") }
        func fail(_ text: String, fix: String) { io.out("  FAIL  \(text)\n        fix: \(fix)\n") }
        func warn(_ text: String) { io.out("  warn  \(text)\n") }

        io.out("tophhie-watch doctor\n")
        let configuration: TophhieConfiguration
        do {
            configuration = try ConnectionOptions.authConfiguration(arguments, io: io)
            pass("configuration: tenant \(configuration.tenant), client \(configuration.clientID), authority \(configuration.authority.absoluteString), Graph \(configuration.graphBaseURL.absoluteString)")
        } catch {
            fail("configuration: \(ErrorReport.describe(error).0)", fix: "set tenant and client_id in the config file, or pass --tenant and --client-id")
            return .usage
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
        io.out("All checks passed.\n")
        return .ok
    }
}

