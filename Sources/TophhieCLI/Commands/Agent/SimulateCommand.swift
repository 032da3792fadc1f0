import Foundation
import TophhieSystem
import TophhieJSON
import TophhieSimulator
import TophhieAgent

/// `simulate`: a simulated tenant on loopback for trying every command without Entra.
enum SimulateCommand: CLICommand {
    struct Options: OptionGroup {
        var port: Option<Int> = .integer("port", in: 0...65_535, default: 0, help: "port on 127.0.0.1 (default: any free port)")
        var scenario: Option<String?> = .file("scenario", help: "scenario JSON (default: a premium tenant with two weeks of history; see examples/scenarios/)")
        var people: Option<Int> = .integer("people", in: 1...1000, default: 1, help: "people in the tenant: person1@… to personN@…, each with an id, a home and a history (default 1: the scenario's one user)")
        var graphLimit: Option<Bool> = .flag("graph-limit", help: "enforce Graph's reporting limit, 5 sign-in log requests per 10 s, with 429 and Retry-After on the simulator's clock")
    }

    static let about = CommandAbout(
        path: ["simulate"],
        summary: "Serve a simulated Entra tenant and Graph on a loopback port (no tenant needed)",
        discussion: """
        Prints the settings to point the CLI (or any HTTP client) at, then serves until Ctrl-C.
        Device codes are approved automatically after 3 seconds in the default scenario; a
        scenario can script pending/slow_down/decline/expire, faults, throttling and latency.
        Control endpoints under /_sim (approve a code, revoke tokens, add sign-ins, inject faults).

        With --people N (2 or more) the tenant serves person1@ to personN@ of the user's domain,
        each with their own object id, home and history (GET /_sim/people lists them). Each
        device-code login signs in the next person not yet signed in, or the one named:
        POST /_sim/device/approve {"person":"person2@contoso.com"}. Sign-ins are added for
        anyone by userId; POST /_sim/tokens/revoke {"person":"person2@contoso.com"} ends one
        person's sessions. --graph-limit answers a sixth sign-in log request within 10 s with
        429; GET /_sim/status counts them under graphLimit.refused.

        To see an alert, add a sign-in (POST /_sim/signins, a JSON array of Graph signIn
        objects) after the first poll, then poll again: the line 'simulate' prints under "Add a
        sign-in" posts one from Moscow, a country the history never came from.

        examples:
          tophhie-watch simulate --port 8765
          tophhie-watch simulate --scenario examples/scenarios/basic.json
          tophhie-watch simulate --people 3 --graph-limit
          curl -s -X POST http://127.0.0.1:8765/_sim/signins -d '[{"id":"try-1","createdDateTime":"'$(date -u +%FT%TZ)'","userId":"26be570a-ae82-4189-b4e2-a37c6808512d","status":{"errorCode":0},"location":{"city":"Moscow","countryOrRegion":"RU"}}]'
        """)

    /// A shell line that adds one sign-in from Moscow, timed when it is run, to the tenant at
    /// `control` for `userID`: what to try after the first poll to see an alert.
    static func addSignInLine(control: String, userID: String, userPrincipalName: String) -> String {
        let record = #"{"id":"try-'$(date +%s)'","createdDateTime":"'$(date -u +%FT%TZ)'","userId":"\#(userID)","userPrincipalName":"\#(userPrincipalName)","#
            + #""appDisplayName":"Outlook Mobile","ipAddress":"95.165.28.126","isInteractive":true,"status":{"errorCode":0},"#
            + #""location":{"city":"Moscow","countryOrRegion":"RU","geoCoordinates":{"latitude":55.75,"longitude":37.62}}}"#
        return "curl -s -X POST \(control)/signins -d '[\(record)]'"
    }

    /// The tenant `simulate` serves without a scenario file.
    static func defaultScenario() -> SimulatorScenario {
        SimulatorScenario(
            tenantID: "8f2d6c1e-6b55-4a8e-9f0a-3b1c2d4e5f60",
            tenantAliases: ["contoso.onmicrosoft.com"],
            clientID: "5c3b2a10-1d2e-4f3a-8b9c-0d1e2f3a4b5c",
            user: SimulatedUser(id: "26be570a-ae82-4189-b4e2-a37c6808512d", userPrincipalName: "jane@contoso.com", kind: .consumer, profile: [
                "displayName": .string("Jane Doe"), "givenName": .string("Jane"), "surname": .string("Doe"),
                "city": .string("London"), "country": .string("GB"), "preferredLanguage": .string("en-GB"),
            ]),
            consentedScopes: ["User.Read", "User.ReadWrite", "AuditLog.Read.All", "Directory.Read.All", "User.RevokeSessions.All"],
            deviceCode: DeviceCodeSettings(autoApproveAfterSeconds: 3, expiresIn: 900, interval: 1),
            generate: [
                SignInGeneration(pattern: .normalHistory, seed: 7, days: 14),
                SignInGeneration(pattern: .failureBurst, seed: 8, secondsAgo: 5400, count: 6, place: "lagos", endingWithSuccess: true),
            ])
    }

    /// The banner's line for the other people, empty with one.
    static func peopleLine(_ scenario: SimulatorScenario) -> String {
        guard let last = scenario.people.last else { return "" }
        return "\n  people      \(scenario.people.count + 1): \(scenario.user.userPrincipalName) to \(last.user.userPrincipalName) (GET /_sim/people)"
    }

    /// The banner's line for an enforced Graph limit, empty without one.
    static func limitLine(_ scenario: SimulatorScenario) -> String {
        guard scenario.throttle.enabled else { return "" }
        let window = scenario.throttle.windowSeconds
        let seconds = window == window.rounded() ? String(Int(window)) : String(window)
        return "\n  Graph limit \(scenario.throttle.requests) sign-in log requests per \(seconds) s, then 429 (count: GET /_sim/status)"
    }

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let port = UInt16(options.port)
        var scenario: SimulatorScenario
        if let file = options.scenario {
            do { scenario = try SimulatorScenario.load(from: URL(fileURLWithPath: file)) } catch {
                throw UsageError("\(error)")
            }
        } else {
            scenario = defaultScenario()
        }
        scenario = scenario.servingPeople(options.people)
        if options.graphLimit { scenario.throttle = ThrottleSettings(enabled: true, requests: 5, windowSeconds: 10) }
        let tenant = SimulatedTenant(scenario: scenario)
        let endpoints: SimulatorEndpoints
        do { endpoints = try await tenant.start(port: port) } catch {
            throw UsageError("cannot listen on 127.0.0.1:\(port): \(error)")
        }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-sim-\(endpoints.port)").path
        io.out("""
        Simulated tenant on 127.0.0.1:\(endpoints.port)
          authority   \(endpoints.authority.absoluteString)
          Graph URL   \(endpoints.graphBaseURL.absoluteString)
          tenant      \(endpoints.tenantID)
          client id   \(endpoints.clientID)
          user        \(scenario.user.userPrincipalName) (\(scenario.user.kind.rawValue) account)\(peopleLine(scenario))\(limitLine(scenario))
          control     \(endpoints.controlURL.absoluteString)

        Point the CLI at it (in another terminal):
          export TOPHHIE_TENANT=\(endpoints.tenantID) TOPHHIE_CLIENT_ID=\(endpoints.clientID)
          export TOPHHIE_AUTHORITY=\(endpoints.authority.absoluteString) TOPHHIE_GRAPH_URL=\(endpoints.graphBaseURL.absoluteString)
          export TOPHHIE_STATE_DIR=\(state)
          tophhie-watch login && tophhie-watch history && tophhie-watch poll

        Add a sign-in from Moscow (after the first poll, which learns the history), then poll to see its alert:
          \(addSignInLine(control: endpoints.controlURL.absoluteString, userID: scenario.user.id, userPrincipalName: scenario.user.userPrincipalName))
          tophhie-watch poll

        Approve a pending device code by hand:
          curl -X POST \(endpoints.controlURL.absoluteString)/device/approve -d user_code=CODE

        Serving until Ctrl-C.

        """)
        try await ServiceGroup(services: [tenant], signals: SignalHandlers.stream()).run()
        io.out("Stopped.\n")
        return .ok
    }
}
