import Foundation
import TophhieAuth
import TophhieAgent
import TophhieJSON
import TophhieSystem

/// `login`: device-code sign-in.
enum LoginCommand: CLICommand {
    struct Options: OptionGroup {
        var connection = ConnectionOptions()
        var scopes: Option<[String]> = .list("scopes", value: "SETS", help: "what to request besides profile,history and the scopes already granted, comma-separated: \(TophhieScopes.sets.map(\.name).joined(separator: ", ")) or scope names")
    }

    static let about = CommandAbout(
        path: ["login"],
        summary: "Sign in with a device code and keep a refresh token for the agent",
        discussion: """
        Prints a code and a web address; open the address on any device, enter the code and sign in.
        offline_access is always requested so the agent can refresh silently. Named sets are added
        to profile,history and to what the current sign-in already holds, never instead of them.

        scope sets:
        \(TophhieScopes.sets.map { "  \($0.name.padding(toLength: 14, withPad: " ", startingAt: 0))\($0.purpose)" }.joined(separator: "\n"))

        examples:
          tophhie-watch login --tenant contoso.onmicrosoft.com --client-id 11111111-2222-3333-4444-555555555555
          tophhie-watch login --scopes profile,history,profile-edit
          tophhie-watch login --account sam        (one of the config's accounts:)
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let configuration = try ConnectionOptions.authConfiguration(options.connection, io: io)
        let names = options.scopes.flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
        let named: [String]
        do { named = try TophhieScopes.resolve(names) } catch let error as TophhieAuthError {
            throw UsageError(error.localizedDescription.replacingOccurrences(of: "configuration: ", with: ""))
        }
        try checkWritable(configuration.stateDirectory)
        let auth = TophhieAuth(configuration: configuration, transport: io.transport, clock: io.clock)
        // A damaged or missing cache only means there is nothing to keep.
        let granted = ((try? await auth.currentSession()) ?? nil)?.grantedScopes ?? []
        let scopes = TophhieScopes.forLogin(named: named, alreadyGranted: granted)
        let session = try await auth.signIn(scopes: scopes) { prompt in
            io.out(prompt.message + "\n")
            io.out("Waiting for the sign-in to finish (the code expires in \(Int(prompt.expiresIn / 60)) minutes)…\n")
        }
        io.out("Signed in as \(session.userPrincipalName ?? "(profile not readable)").\n")
        io.out("Granted: \(session.grantedScopes.joined(separator: " "))\n")
        let missing = scopes.filter { !TophhieScopes.covers(session.grantedScopes, $0) }
        if !missing.isEmpty {
            io.out("Not granted: \(missing.joined(separator: " ")) — an administrator may need to consent on the app registration.\n")
        }
        io.out("Token cache: \(configuration.stateDirectory.appendingPathComponent("tokens.json").path) (mode 0600)\n")
        return .ok
    }

    /// Fails before the person types a code rather than after: the token cache must be writable.
    static func checkWritable(_ directory: URL) throws {
        let probe = directory.appendingPathComponent(".login-check-\(ProcessFacts.processID)").path
        do {
            try DurableFile.makeDirectory(directory.path)
            try DurableFile.replace(probe, with: [])
            try? FileManager.default.removeItem(atPath: probe)
        } catch {
            // A configuration-class failure, exit 2 as `poll` gives for the same directory.
            throw ConfigurationError("token cache: cannot write to the state directory \(directory.path) (\(error)); sign-in was not started. Run login as the user the agent runs as (for the system service: sudo -u tophhie-watch), or pass --state-dir")
        }
    }
}

/// `logout`: forget the signed-in user.
enum LogoutCommand: CLICommand {
    typealias Options = ConnectionOptions

    static let about = CommandAbout(
        path: ["logout"],
        summary: "Delete the token cache (the agent stops until the next login)",
        discussion: "example:\n  tophhie-watch logout")

    static func run(_ options: ParsedOptions<ConnectionOptions>, io: CommandIO) async throws -> ExitCode {
        let configuration = try ConnectionOptions.authConfiguration(options, io: io)
        let auth = TophhieAuth(configuration: configuration, transport: io.transport, clock: io.clock)
        let had = try await auth.currentSession() != nil
        try await auth.signOut()
        io.out(had ? "Signed out; the token cache was deleted.\n" : "Nobody was signed in.\n")
        return .ok
    }
}
