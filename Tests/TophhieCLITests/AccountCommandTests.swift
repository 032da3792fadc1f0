import Foundation
import Testing
import LoopbackHTTP
import TophhieSystem
import TophhieAgent
import TophhieAuth
import TophhieJSON
import TophhieSimulator
@testable import TophhieCLI

/// The account commands against a simulated tenant reached in-process, as a person would run them.
@Suite(.timeLimit(.minutes(20))) struct AccountCommandTests {
    struct Tenant {
        let tenant: SimulatedTenant
        let environment: [String: String]
        let stateDirectory: String
        let clock: ManualClock
        var transport: any HTTPTransport { tenant.transport(clock: clock) }
    }

    static func tenant(deviceName: String = "JANE-LAPTOP", premium: Bool = true, consented: [String]? = nil, licenceRefusalEvery: Int = 0, overTheWire: Bool = false, refreshes: [Double] = [], betaRefusal: Int? = nil) async throws -> Tenant {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_788_000_000))
        var scenario = SimulateCommand.defaultScenario()
        scenario.premium = premium
        scenario.licenceRefusalEveryWithoutDirectoryRead = licenceRefusalEvery
        scenario.betaRefusalStatus = betaRefusal
        if let consented { scenario.consentedScopes = consented }
        scenario.deviceCode = DeviceCodeSettings(script: [.authorizationPending, .approve], interval: 1)
        scenario.generate = []
        var factory = SignInFactory(seed: 3, account: .init(userID: scenario.user.id, userPrincipalName: scenario.user.userPrincipalName, displayName: "Jane"))
        var device = SignInFactory.Device.laptop
        device.browser = deviceName
        scenario.signIns = [
            ScenarioSignIn(event: factory.signIn(at: clock.now().addingTimeInterval(-3600), device: device), latencySeconds: 0),
            ScenarioSignIn(event: factory.signIn(at: clock.now().addingTimeInterval(-7200), place: .lagos, errorCode: 50126), latencySeconds: 0),
        ] + refreshes.map { ScenarioSignIn(event: factory.signIn(at: clock.now().addingTimeInterval($0), app: .outlook, interactive: false), latencySeconds: 0) }
        let tenant = SimulatedTenant(scenario: scenario, now: { clock.now() })
        let endpoints = overTheWire ? try await tenant.start() : await tenant.embeddedEndpoints()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-cli-\(UUID().uuidString)").path
        return Tenant(tenant: tenant, environment: [
            "TOPHHIE_TENANT": endpoints.tenantID, "TOPHHIE_CLIENT_ID": endpoints.clientID,
            "TOPHHIE_AUTHORITY": endpoints.authority.absoluteString, "TOPHHIE_GRAPH_URL": endpoints.graphBaseURL.absoluteString,
            "TOPHHIE_STATE_DIR": state, "HOME": state,
        ], stateDirectory: state, clock: clock)
    }

    func run(_ arguments: [String], _ environment: [String: String]) async -> (ExitCode, CommandOutputRecorder) {
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(arguments, io: recorder.io(environment: environment, transport: Self.noNetwork, clock: ManualClock(Date())))
        return (code, recorder)
    }

    /// A transport for tests that must not reach anything: every request is a dropped connection.
    static let noNetwork = EmbeddedTransport(clock: ManualClock(Date())) { _ in .dropConnection }

    func run(_ arguments: [String], _ context: Tenant) async -> (ExitCode, CommandOutputRecorder) {
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(arguments, io: recorder.io(environment: context.environment, transport: context.transport, clock: context.clock))
        return (code, recorder)
    }

    @Test func loginPrintsTheDeviceCodePromptThenStatusHistoryAndProfileWork() async throws {
        let context = try await Self.tenant()
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        let (loginCode, login) = await run(["login"], context)
        #expect(loginCode == .ok, "\(login.err)")
        #expect(login.out.contains("To sign in, use a web browser to open the page"))
        #expect(login.out.contains("Signed in as jane@contoso.com."))

        let (statusCode, status) = await run(["status"], context)
        #expect(statusCode == .ok)
        #expect(status.out.contains("AuditLog.Read.All"))
        #expect(status.out.contains("(mode 600)"))
        let tokens = try String(contentsOfFile: context.stateDirectory + "/tokens.json", encoding: .utf8)
        let cached = try JSONValue.parse(Data(tokens.utf8))
        let refresh = try #require(cached["refreshToken"]?.stringValue)
        #expect(!status.out.contains(refresh) && !login.out.contains(refresh), "a token reached the output")

        let (historyCode, history) = await run(["history", "--top", "5"], context)
        #expect(historyCode == .ok, "\(history.err)")
        let lines = history.out.split(separator: "\n")
        #expect(lines.first?.hasPrefix("TIME (UTC)") == true)
        #expect(lines.count == 3)
        #expect(history.out.contains("failed 50126"))
        #expect(history.out.contains("Lagos, NG"))

        let (jsonCode, json) = await run(["history", "--json"], context)
        #expect(jsonCode == .ok)
        let jsonLines = json.out.split(separator: "\n")
        #expect(jsonLines.count == 2, "two sign-ins in the tenant")
        for line in jsonLines { #expect(throws: Never.self) { try JSONValue.parse(Data(line.utf8)) } }

        let (profileCode, profile) = await run(["profile", "show"], context)
        #expect(profileCode == .ok)
        #expect(profile.out.contains("English (United Kingdom)"))

        // Pretty-printed, and still JSON: layout newlines stay whitespace, never `\u000a`.
        let (profileJSONCode, profileJSON) = await run(["profile", "show", "--json"], context)
        #expect(profileJSONCode == .ok)
        #expect(!profileJSON.out.contains("\\u000a"), "\(profileJSON.out)")
        #expect(profileJSON.out.split(separator: "\n").count > 3)
        #expect(throws: Never.self) { try JSONValue.parse(Data(profileJSON.out.utf8)) }
    }

    @Test func loginWithAScopeSetAddsItAndKeepsWhatTheAgentAndProfileNeed() async throws {
        let context = try await Self.tenant()
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        #expect(await run(["login"], context).0 == .ok)
        // Following profile set's hint: the edit scope joins, the profile and history scopes stay.
        let (code, login) = await run(["login", "--scopes", "profile-edit"], context)
        #expect(code == .ok, "\(login.err)")
        let granted = login.out.split(separator: "\n").first { $0.hasPrefix("Granted: ") }.map { $0.split(separator: " ").map(String.init) } ?? []
        for scope in ["User.Read", "AuditLog.Read.All", "User.ReadWrite"] {
            #expect(granted.contains(scope), "\(scope) in \(granted)")
        }
        let (historyCode, history) = await run(["history", "--top", "1"], context)
        #expect(historyCode == .ok, "\(history.err)")
    }

    @Test func loginAsksForDirectoryReadSoTheIntermittentLicenceRefusalNeverComes() async throws {
        // Microsoft documents AuditLog.Read.All and Directory.Read.All for listing sign-ins; on
        // the tenants with the known issue a token without the second is refused now and then.
        let context = try await Self.tenant(licenceRefusalEvery: 2)
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        let (code, login) = await run(["login"], context)
        #expect(code == .ok, "\(login.err)")
        #expect(login.out.contains("Directory.Read.All"), "\(login.out)")
        for _ in 0..<4 {
            let (historyCode, history) = await run(["history", "--top", "1"], context)
            #expect(historyCode == .ok, "\(history.err)")
        }
        let (doctorCode, doctor) = await run(["doctor"], context)
        #expect(doctorCode == .ok, "\(doctor.out)")
        #expect(!doctor.out.contains("warn  scopes: Directory.Read.All"))
    }

    @Test func doctorWarnsWhenOnlyAuditLogReadWasConsented() async throws {
        let context = try await Self.tenant(consented: ["User.Read", "User.ReadWrite", "AuditLog.Read.All"])
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        let (code, login) = await run(["login"], context)
        #expect(code == .ok, "\(login.err)")
        #expect(login.out.contains("Not granted: Directory.Read.All — an administrator may need to consent on the app registration."), "\(login.out)")
        let (doctorCode, doctor) = await run(["doctor"], context)
        #expect(doctorCode == .ok, "\(doctor.out)")
        #expect(doctor.out.contains("  warn  scopes: Directory.Read.All not granted; Microsoft documents it beside AuditLog.Read.All for reading sign-ins"), "\(doctor.out)")
    }

    /// Both streams, newest first, each row naming its stream; `--stream` keeps one.
    @Test func historyShowsAndFiltersEachSignInsStream() async throws {
        let context = try await Self.tenant(refreshes: [-1800, -5400])
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        _ = await run(["login"], context)
        let (code, all) = await run(["history"], context)
        #expect(code == .ok, "\(all.err)")
        let rows = all.out.split(separator: "\n").dropFirst().map { $0.split(separator: " ", omittingEmptySubsequences: true)[2] }
        #expect(rows == ["non-interactive", "interactive", "non-interactive", "interactive"], "\(all.out)")
        let (_, tokens) = await run(["history", "--stream", "non-interactive"], context)
        #expect(tokens.out.split(separator: "\n").count == 3 && !tokens.out.contains(" interactive "), "\(tokens.out)")
        let (_, mine) = await run(["history", "--stream", "interactive", "--json"], context)
        #expect(mine.out.split(separator: "\n").count == 2 && !mine.out.contains("nonInteractiveUser"))
        let (bad, badOutput) = await run(["history", "--stream", "tokens"], context)
        #expect(bad == .usage)
        #expect(badOutput.err.contains("option '--stream' takes all, interactive or non-interactive, not 'tokens'"), "\(badOutput.err)")
    }

    /// Doctor says when Graph refuses beta, and what that costs; the history still reads v1.0.
    @Test func doctorNamesARefusedBetaAndWhatItCosts() async throws {
        let refused = try await Self.tenant(betaRefusal: 403)
        defer { try? FileManager.default.removeItem(atPath: refused.stateDirectory) }
        _ = await run(["login"], refused)
        let (code, doctor) = await run(["doctor"], refused)
        #expect(code == .ok, "\(doctor.out)")
        #expect(doctor.out.contains("  warn  streams: Graph refused the beta sign-in log or its non-interactive filter (HTTP 403 Authorization_RequestDenied); the agent reads v1.0's interactive sign-ins instead"), "\(doctor.out)")
        #expect(doctor.out.contains("device-code-sign-in, token-from-new-place"))
        let (historyCode, history) = await run(["history"], refused)
        #expect(historyCode == .ok && history.out.split(separator: "\n").count == 3, "\(history.out)")

        let healthy = try await Self.tenant()
        defer { try? FileManager.default.removeItem(atPath: healthy.stateDirectory) }
        _ = await run(["login"], healthy)
        let (_, fine) = await run(["doctor"], healthy)
        #expect(fine.out.contains("  ok    streams: interactive and non-interactive sign-ins readable from Graph beta"), "\(fine.out)")
    }

    @Test func hostileDeviceNamesCannotForgeTheTable() async throws {
        let context = try await Self.tenant(deviceName: "Edge\u{1b}[2J\u{1b}[31m\nfake row\r")
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        _ = await run(["login"], context)
        let (code, history) = await run(["history"], context)
        #expect(code == .ok)
        #expect(!history.out.contains("\u{1b}"))
        #expect(!history.out.contains("\r"))
        #expect(history.out.split(separator: "\n").count == 3, "the newline in the device name did not start a row")
    }

    @Test func doctorPassesOnAHealthyTenantAndNamesTheLicenceOnAFreeOne() async throws {
        let healthy = try await Self.tenant()
        defer { try? FileManager.default.removeItem(atPath: healthy.stateDirectory) }
        _ = await run(["login"], healthy)
        let (code, report) = await run(["doctor"], healthy)
        #expect(code == .ok, "\(report.out)")
        #expect(report.out.hasSuffix("All checks passed.\n"))

        let free = try await Self.tenant(premium: false)
        defer { try? FileManager.default.removeItem(atPath: free.stateDirectory) }
        _ = await run(["login"], free)
        let (freeCode, freeReport) = await run(["doctor"], free)
        #expect(freeCode == .accessDenied)
        #expect(freeReport.out.contains("  FAIL  licence: Graph failed reading your sign-in history (GET /auditLogs/signIns): HTTP 403 Authentication_RequestFromNonPremiumTenantOrB2CTenant"))
        #expect(freeReport.out.contains("fix: the tenant has no Microsoft Entra ID P1 or P2 licence"))
    }

    @Test func statusWithoutSignInExitsWithTheSignInCode() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-cli-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let environment = ["TOPHHIE_TENANT": "contoso.onmicrosoft.com", "TOPHHIE_CLIENT_ID": "5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c", "TOPHHIE_STATE_DIR": state]
        let (code, output) = await run(["status"], environment)
        #expect(code == .signInNeeded)
        #expect(output.out.contains("Not signed in"))
        let (historyCode, history) = await run(["history"], environment)
        #expect(historyCode == .signInNeeded)
        #expect(history.err.contains("sign-in needed: nobody is signed in; run 'tophhie-watch login'"))
    }

    /// A state directory that cannot be one exits 2 (the README's table), not 3.
    @Test func statusOnAnUnusableStateDirectoryExitsTwo() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-cli-file-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data("not a directory".utf8)))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let environment = ["TOPHHIE_TENANT": "contoso.onmicrosoft.com", "TOPHHIE_CLIENT_ID": "5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c", "TOPHHIE_STATE_DIR": file]
        let (code, output) = await run(["status"], environment)
        #expect(code == .usage, "\(output.out)\(output.err)")
        #expect(output.out.contains("Agent state:   UNUSABLE: \(file) is not a directory") || output.err.contains(file), "\(output.out)\(output.err)")
    }

    /// Human `status` and `doctor` are coloured on a terminal, and plain with NO_COLOR or a pipe.
    @Test func statusAndDoctorAreColouredOnATerminalOnly() async throws {
        let context = try await Self.tenant()
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        _ = await run(["login"], context)
        func coloured(_ arguments: [String], terminal: Bool, noColour: Bool) async -> String {
            let recorder = CommandOutputRecorder()
            var io = recorder.io(environment: context.environment.merging(noColour ? ["NO_COLOR": "1"] : [:]) { $1 }, transport: context.transport, clock: context.clock)
            io.outIsTerminal = terminal
            _ = await TophhieCommandLine.run(arguments, io: io)
            return recorder.out
        }
        let doctor = await coloured(["doctor"], terminal: true, noColour: false)
        #expect(doctor.contains("\u{1B}[32mok  \u{1B}[0m"), "\(doctor)")
        #expect(doctor.contains("\u{1B}[32mAll checks passed.\u{1B}[0m"))
        let status = await coloured(["status"], terminal: true, noColour: false)
        #expect(status.contains("\u{1B}[33mnever\u{1B}[0m"), "\(status)")
        for (terminal, noColour) in [(true, true), (false, false)] {
            #expect(!(await coloured(["doctor"], terminal: terminal, noColour: noColour)).contains("\u{1B}["))
            #expect(!(await coloured(["status"], terminal: terminal, noColour: noColour)).contains("\u{1B}["))
        }
    }

    /// A missing scope gives one instruction, the login that grants it, on its own line.
    @Test func profileSetWithoutTheScopeGivesOneInstruction() async throws {
        let context = try await Self.tenant()
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        _ = await run(["login"], context)
        let (code, output) = await run(["profile", "set", "--city", "Paris"], context)
        #expect(code == .signInNeeded)
        #expect(output.err == "tophhie-watch profile set: sign-in needed: the permission User.ReadWrite was not granted at sign-in; run 'tophhie-watch login --scopes profile-edit' (it may need admin consent)\n", "\(output.err)")
    }

    /// `demo --help` speaks of the installed command, not of a checkout's `swift run`.
    @Test func demoHelpDoesNotShowSwiftRun() async {
        let (code, output) = await run(["demo", "--help"], [:])
        #expect(code == .ok)
        #expect(!output.out.contains("swift run"))
        #expect(output.out.contains("  tophhie-watch demo\n"))
    }

    @Test(arguments: [
        (["history", "--top", "0"], "tophhie-watch history: option '--top' takes a whole number from 1 to 10000, not '0'"),
        (["history", "--bogus"], "tophhie-watch history: unknown option '--bogus' for 'tophhie-watch history'"),
        (["profile", "set"], "tophhie-watch profile set: nothing to change: name at least one field, e.g. --city London or --clear job-title"),
        (["profile", "set", "--clear", "mail"], "tophhie-watch profile set: cannot clear 'mail': writable fields are display-name, given-name, surname, job-title, street-address, city, state, postal-code, country, preferred-language"),
        (["profile", "set", "--preferred-language", "english"], "tophhie-watch profile set: 'english' is not a BCP-47 language tag such as en-GB; see --list-languages"),
        (["login", "--scopes", "everything"], "tophhie-watch login: unknown scope set 'everything'; use profile, history, profile-edit, respond, member-edit or a scope name such as User.Read"),
        (["frobnicate"], "tophhie-watch: unknown command 'frobnicate'; see 'tophhie-watch --help'"),
        (["history", "--tenant", "../../evil"], "tophhie-watch history: the tenant '../../evil' is neither a tenant id"),
        (["login", "--client-id", "not a guid"], "tophhie-watch login: the client id 'not a guid' is not an application (client) id"),
    ])
    func usageErrorsExitTwoWithAPlainMessage(arguments: [String], message: String) async {
        let (code, output) = await run(arguments, ["TOPHHIE_TENANT": "contoso.onmicrosoft.com", "TOPHHIE_CLIENT_ID": "5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c", "TOPHHIE_STATE_DIR": "/nonexistent/tophhie"])
        #expect(code == .usage)
        #expect(output.err.hasPrefix(message), "\(output.err)")
    }

    /// With no config file found, the error names every place looked, in order.
    @Test func missingTenantNamesThePlacesLooked() async {
        let (code, output) = await run(["history"], ["TOPHHIE_STATE_DIR": "/nonexistent/tophhie", "HOME": "/nonexistent/home"])
        #expect(code == .usage)
        #expect(output.err == "tophhie-watch history: error: no tenant: no config file was found (looked for /nonexistent/home/.config/tophhie-watch/config.yml, /nonexistent/tophhie-watch/config.yml, /nonexistent/tophhie/tophhie-watch.yml); write 'tenant:' in the first, pass --config FILE, pass --tenant, or set TOPHHIE_TENANT\n", "\(output.err)")
    }

    /// `~/.config/tophhie-watch/config.yml` (or `$XDG_CONFIG_HOME`'s) is read without `--config`,
    /// and `status` says which file it read and why.
    @Test func theUsersConfigIsFoundWithoutConfig() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("tw-home-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let folder = home.appendingPathComponent(".config/tophhie-watch")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "tenant: contoso.onmicrosoft.com\nclient_id: 5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c\nstate_dir: \(home.path)/state\n".write(to: folder.appendingPathComponent("config.yml"), atomically: true, encoding: .utf8)
        let (code, output) = await run(["status"], ["HOME": home.path])
        #expect(code == .signInNeeded, "\(output.err)")
        #expect(output.out.hasPrefix("Config:        \(folder.path)/config.yml (~/.config)\nRules:         "), "\(output.out)")
        #expect(output.out.contains("\nNot signed in. Run 'tophhie-watch login'.\n"), "\(output.out)")
        let xdg = home.appendingPathComponent(".config")
        let (_, json) = await run(["status", "--json"], ["HOME": "/nonexistent/home", "XDG_CONFIG_HOME": xdg.path])
        #expect(json.out.contains("\"chosenBy\" : \"$XDG_CONFIG_HOME\""), "\(json.out)")
    }

    /// The commands the program suggests carry the `--config` given, so they read the same file.
    @Test func suggestedCommandsCarryTheConfigGiven() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tw-\(UUID().uuidString).yml")
        defer { try? FileManager.default.removeItem(at: file) }
        try "tenant: contoso.onmicrosoft.com\nclient_id: 5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c\nstate_dir: /nonexistent/tophhie\n".write(to: file, atomically: true, encoding: .utf8)
        let (_, output) = await run(["status", "--config", file.path], [:])
        #expect(output.out.contains("Not signed in. Run 'tophhie-watch login --config \(file.path)'.\n"), "\(output.out)")
        #expect(ConfigHints.add("/a b.yml", to: "run 'tophhie-watch outbox retry --notifier x' or 'tophhie-watch login --config c'") == "run 'tophhie-watch outbox retry --notifier x --config \"/a b.yml\"' or 'tophhie-watch login --config c'")
    }

    /// `respond --revoke-sessions` revokes every session (the simulator refuses the old refresh
    /// token, as Entra does), tells the notifiers, and the agent's next poll says sign-in needed
    /// at once (exit 3), until a new login; without --yes and no terminal nothing is revoked.
    @Test func respondRevokesEverySessionAndTheAgentMustSignInAgain() async throws {
        let context = try await Self.tenant()
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        let rules = ["--rules", RulesTestPaths.rules]
        #expect(await run(["login", "--scopes", "profile,history,respond"], context).0 == .ok)
        #expect(await run(["poll"] + rules, context).0 == .ok)
        let (unasked, refused) = await run(["respond", "--revoke-sessions"], context)
        #expect(unasked == .usage)
        #expect(refused.err.contains("pass --yes to do it without a terminal to ask on"), "\(refused.err)")
        #expect(SessionRevocation.read(stateDirectory: URL(fileURLWithPath: context.stateDirectory)) == nil, "nothing revoked")

        let (code, respond) = await run(["respond", "--revoke-sessions", "--yes"], context)
        #expect(code == .ok, "\(respond.err)")
        #expect(respond.out.contains("Revoked every session of jane@contoso.com at "), "\(respond.out)")
        #expect(respond.out.contains("[tophhie.notice.sessions-revoked] Every session of the account was revoked"), "told through the notifier: \(respond.out)")
        #expect(await context.tenant.userProperties["signInSessionsValidFromDateTime"] != nil)

        let (after, poll) = await run(["poll"] + rules, context)
        #expect(after == .signInNeeded, "\(poll.err)")
        // The simulator refuses the old refresh token as Entra does, once the access token expires.
        let recorded = try Data(contentsOf: URL(fileURLWithPath: context.stateDirectory + "/sessions-revoked.json"))
        try FileManager.default.removeItem(atPath: context.stateDirectory + "/sessions-revoked.json")
        context.clock.advance(by: 2 * 3600)
        let (expired, refusedPoll) = await run(["poll"] + rules, context)
        #expect(expired == .signInNeeded)
        #expect((refusedPoll.err + refusedPoll.out).contains("AADSTS50173"), "\(refusedPoll.err)\(refusedPoll.out)")
        try recorded.write(to: URL(fileURLWithPath: context.stateDirectory + "/sessions-revoked.json"))
        #expect(poll.out.contains("[tophhie.notice.sign-in-needed]") || poll.err.contains("sign-in needed"), "\(poll.out)\(poll.err)")
        let (status, shown) = await run(["respond"], context)
        #expect(status == .ok && shown.out.contains("Sessions were last revoked at "))
        let (_, statusShown) = await run(["status"], context)
        #expect(statusShown.out.contains("Sessions:      all revoked at "), "\(statusShown.out)")
        #expect(statusShown.out.contains("this agent must sign in again ('tophhie-watch login')"))

        #expect(await run(["login", "--scopes", "profile,history,respond"], context).0 == .ok)
        let (again, clean) = await run(["poll"] + rules, context)
        #expect(again == .ok, "\(clean.err)")
    }

    /// Without admin consent for User.RevokeSessions.All the sign-in says it was not granted, and
    /// respond is refused as Graph refuses access (exit 4), naming the consent and the login.
    @Test func respondWithoutConsentNamesTheFix() async throws {
        let context = try await Self.tenant(consented: ["User.Read", "AuditLog.Read.All", "Directory.Read.All"])
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        let (loginCode, login) = await run(["login", "--scopes", "profile,history,respond"], context)
        #expect(loginCode == .ok)
        #expect(login.out.contains("Not granted: User.RevokeSessions.All — an administrator may need to consent on the app registration."), "\(login.out)")
        let (code, respond) = await run(["respond", "--revoke-sessions", "--yes"], context)
        #expect(code == .accessDenied, "\(respond.err)")
        #expect(respond.err == "tophhie-watch respond: revoking needs the delegated permission User.RevokeSessions.All; an administrator grants admin consent for it on the app registration, then run `tophhie-watch login --scopes respond`\n", "\(respond.err)")
        #expect(SessionRevocation.read(stateDirectory: URL(fileURLWithPath: context.stateDirectory)) == nil, "nothing revoked")
    }

    @Test func aRefusedRevocationIsAccessDeniedWithTheFix() {
        let (text, code) = ErrorReport.describe(TophhieAuthError.sessionRevocation(status: 403, graphCode: "Authorization_RequestDenied"))
        #expect(code == .accessDenied)
        #expect(text == "revoking needs the delegated permission User.RevokeSessions.All; an administrator grants admin consent for it on the app registration, then run `tophhie-watch login --scopes respond`", "\(text)")
    }

    @Test func everyCommandHasHelp() async {
        for command in TophhieCommandLine.commands {
            let (code, output) = await run(command.spec.path + ["--help"], [:])
            #expect(code == .ok)
            #expect(output.out.contains("usage: \(command.spec.displayName)"), "\(command.spec.displayName)")
            #expect(output.out.contains("example"), "\(command.spec.displayName) --help has no example")
        }
        let (code, overview) = await run(["--help"], [:])
        #expect(code == .ok)
        #expect(overview.out.contains("Exit codes: 0 ok, 1 runtime failure, 2 usage or configuration error, 3 sign-in needed, 4 access denied by Graph."))
    }

    @Test func aSecondPollWhileOneHoldsTheLockExitsCleanly() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let held = try StateDirectoryLock.acquire(stateDirectory: state)
        defer { held.release() }
        let (code, output) = await run(["poll"], ["TOPHHIE_TENANT": "contoso.onmicrosoft.com", "TOPHHIE_CLIENT_ID": "5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c", "TOPHHIE_STATE_DIR": state.path])
        #expect(code == .ok)
        #expect(output.err.contains("is already running on this state directory"))
    }
}

/// The one CLI test over real sockets: `login` and `history` against a tenant on loopback, through
/// URLSession and the real clock, as a person would run them.
@Suite(.serialized, .timeLimit(.minutes(20))) struct AccountCommandsOverTheWireTests {
    @Test func loginAndHistoryOverLoopback() async throws {
        let context = try await AccountCommandTests.tenant(overTheWire: true)
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(["login"], io: recorder.io(environment: context.environment))
        #expect(code == .ok, "\(recorder.err)")
        #expect(recorder.out.contains("Signed in as jane@contoso.com."))
        let history = CommandOutputRecorder()
        #expect(await TophhieCommandLine.run(["history", "--json"], io: history.io(environment: context.environment)) == .ok)
        #expect(history.out.split(separator: "\n").count == 2)
        await context.tenant.stop()
        try? FileManager.default.removeItem(atPath: context.stateDirectory)
    }
}
