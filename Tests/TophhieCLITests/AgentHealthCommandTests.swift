import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import LoopbackHTTP
import TophhieSystem
import TophhieAgent
import TophhieJSON
import TophhieRules
import TophhieSimulator
@testable import TophhieCLI

/// Records every request a heartbeat monitor receives and answers 200.
final class HeartbeatMonitor: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [String] = []
    var paths: [String] { lock.withLock { received } }
    func record(_ path: String) { lock.withLock { received.append(path) } }
}

/// Sends the monitor's host to the recorder and everything else to the simulated tenant.
struct RoutingTransport: HTTPTransport {
    let tenant: any HTTPTransport
    let monitor: HeartbeatMonitor

    func send(_ request: URLRequest, deadline: Double) async throws -> HTTPReply {
        if request.url?.host == "hc.example" {
            monitor.record("\(request.httpMethod ?? "GET") \(request.url?.path ?? "")")
            return HTTPReply(status: 200, headers: [:], body: Data("OK".utf8))
        }
        return try await tenant.send(request, deadline: deadline)
    }
}

/// The monitor of the monitor: heartbeat, metrics file, `status --json` and the outbox commands.
@Suite(.timeLimit(.minutes(20))) struct AgentHealthCommandTests {
    static let rules = """
    title: Failed password
    id: test-failed
    logsource: {product: azure, service: signinlogs}
    detection:
        selection:
            status.errorCode: 50126
        condition: selection
    level: low
    """

    func run(_ arguments: [String], _ context: AccountCommandTests.Tenant, transport: (any HTTPTransport)? = nil) async -> (ExitCode, CommandOutputRecorder) {
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(arguments, io: recorder.io(environment: context.environment, transport: transport ?? context.transport, clock: context.clock))
        return (code, recorder)
    }

    /// A signed-in tenant with a config file in its state directory naming the rules and `health`.
    func prepared(health: String) async throws -> AccountCommandTests.Tenant {
        let context = try await AccountCommandTests.tenant()
        do {
            try FileManager.default.createDirectory(atPath: context.stateDirectory, withIntermediateDirectories: true)
            try Self.rules.write(toFile: context.stateDirectory + "/rules.yml", atomically: true, encoding: .utf8)
            try "rules: [rules.yml]\n\(health)".write(toFile: context.stateDirectory + "/tophhie-watch.yml", atomically: true, encoding: .utf8)
        } catch {
            try? FileManager.default.removeItem(atPath: context.stateDirectory)
            throw error
        }
        let (code, login) = await run(["login"], context)
        #expect(code == .ok, "\(login.err)")
        return context
    }

    @Test func eachPollPingsTheHeartbeatAndWritesTheMetricsFile() async throws {
        let context = try await prepared(health: "health:\n  heartbeat_url: https://hc.example/ping/0b1c-secret\n  metrics_file: metrics/tophhie.prom\n")
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        try FileManager.default.createDirectory(atPath: context.stateDirectory + "/metrics", withIntermediateDirectories: true)
        let monitor = HeartbeatMonitor()
        let transport = RoutingTransport(tenant: context.transport, monitor: monitor)
        let (code, poll) = await run(["poll"], context, transport: transport)
        #expect(code == .ok, "\(poll.err)")
        #expect(monitor.paths == ["GET /ping/0b1c-secret"])
        let metrics = try String(contentsOfFile: context.stateDirectory + "/metrics/tophhie.prom", encoding: .utf8)
        #expect(metrics.contains("# TYPE tophhie_watch_last_poll_success gauge\ntophhie_watch_last_poll_success 1\n"))
        #expect(metrics.contains("tophhie_watch_last_successful_poll_timestamp_seconds 1788000002\n"))
        #expect(metrics.contains("tophhie_watch_outbox_pending{notifier=\"stdout\"} 0\n"))
        #expect(metrics.contains("tophhie_watch_problem{kind=\"signInNeeded\"} 0\n"))
        #expect(DurableFile.permissions(of: context.stateDirectory + "/metrics/tophhie.prom") == 0o644)

        // The refresh token is revoked: the poll fails, and the monitor hears /fail.
        _ = await context.tenant.revokeRefreshTokens()
        context.clock.advance(by: 7200)
        let (failed, failedPoll) = await run(["poll"], context, transport: transport)
        #expect(failed == .signInNeeded, "\(failedPoll.err)")
        #expect(monitor.paths == ["GET /ping/0b1c-secret", "GET /ping/0b1c-secret/fail"])
        #expect(!failedPoll.err.contains("0b1c-secret"), "the check's secret never reaches the log")
        let after = try String(contentsOfFile: context.stateDirectory + "/metrics/tophhie.prom", encoding: .utf8)
        #expect(after.contains("tophhie_watch_last_poll_success 0\n"))
        #expect(after.contains("tophhie_watch_problem{kind=\"signInNeeded\"} 1\n"))
    }

    @Test func aHeartbeatThatCannotBeReachedIsLoggedWithoutItsSecret() async throws {
        let context = try await prepared(health: "health:\n  heartbeat_url: https://unreachable.example/ping/0b1c-secret\n")
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        let (code, poll) = await run(["poll"], context)
        #expect(code == .ok, "a monitor that is down does not fail the poll")
        #expect(poll.err.contains("heartbeat https://unreachable.example: "), "\(poll.err)")
        #expect(!poll.err.contains("0b1c-secret"))
    }

    @Test func statusJSONReportsTheLastPollTheProblemAndTheOutboxes() async throws {
        let context = try await prepared(health: "")
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        _ = await run(["poll"], context)
        let (code, status) = await run(["status", "--json"], context)
        #expect(code == .ok)
        let value = try JSONValue.parse(Data(status.out.utf8))
        #expect(value.value(atPath: "agent.lastSuccessfulPoll") == .string("2026-08-29T10:40:02.000Z"))
        #expect(value.value(atPath: "agent.healthy") == .bool(true))
        #expect(value.value(atPath: "agent.problem") == .null)
        #expect(value.value(atPath: "agent.notifiers.0.name") == .string("stdout"))
        #expect(value.value(atPath: "agent.notifiers.0.pending") == .int(0))
        #expect(value.value(atPath: "session.userPrincipalName") == .string("jane@contoso.com"))
        let tokens = try String(contentsOfFile: context.stateDirectory + "/tokens.json", encoding: .utf8)
        let refresh = try #require(try JSONValue.parse(Data(tokens.utf8))["refreshToken"]?.stringValue)
        #expect(!status.out.contains(refresh))

        try Data("{".utf8).write(to: URL(fileURLWithPath: context.stateDirectory + "/state.json"))
        let (damagedCode, damaged) = await run(["status", "--json"], context)
        #expect(damagedCode == .usage, "an unusable state exits 2, as the README's table says")
        let broken = try JSONValue.parse(Data(damaged.out.utf8))
        #expect(broken.value(atPath: "agent.healthy") == .bool(false))
        #expect(broken.value(atPath: "agent.stateError")?.stringValue?.contains("the agent state is damaged") == true)
        let (textCode, text) = await run(["status"], context)
        #expect(textCode == .usage)
        #expect(text.out.contains("Agent state:   UNUSABLE: "))
    }

    /// Issue 44: per stream, by when a sign-in Graph publishes late anywhere in the lookback is
    /// found, in words and in `--json`: after the first poll the walk's length is not known;
    /// after the second (a small tenant's walk is one page) the next poll's walk reads it all.
    @Test func statusSaysByWhenALateSignInAnywhereInTheLookbackIsFound() async throws {
        let context = try await prepared(health: "")
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        _ = await run(["poll"], context)
        let (_, learned) = await run(["status"], context)
        #expect(learned.out.contains("Late interactive: a late sign-in anywhere in the last 24 h: not known yet (the walk's length is known after its first page)\n"), "\(learned.out)")
        context.clock.advance(by: 300)
        _ = await run(["poll"], context)
        let (_, text) = await run(["status"], context)
        // Polls 5 minutes apart, up to 30 s of jitter and 30 s for the poll itself: the next poll
        // starts at most 360 s after this one.
        #expect(text.out.contains("Late interactive: a late sign-in anywhere in the last 24 h is found by 2026-08-29 10:51 UTC (a new walk of 1 page starts next poll, 1 page a poll)\n"), "\(text.out)")
        #expect(text.out.contains("Re-read interactive: starts again from the top next poll"))
        let (_, json) = await run(["status", "--json"], context)
        let value = try JSONValue.parse(Data(json.out.utf8))
        #expect(value.value(atPath: "agent.lastSuccessfulPoll") == .string("2026-08-29T10:45:02.000Z"))
        #expect(value.value(atPath: "agent.rereads.0.stream") == .string("interactive"))
        #expect(value.value(atPath: "agent.rereads.0.lateSignInFoundBy") == .string("2026-08-29T10:51:02.000Z"))
        #expect(value.value(atPath: "agent.rereads.0.walkPages") == .int(1))
        #expect(value.value(atPath: "agent.rereads.0.pagesPerPoll") == .int(1))
    }

    @Test func outboxListRetryAndEnable() async throws {
        let context = try await prepared(health: "")
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        let now = context.clock.now()
        do {
            let store = try OutboxStore(stateDirectory: context.stateDirectory, notifier: "stdout")
            let alert = Alert(id: "alert-1", rule: AlertRule(id: "test-failed", title: "Failed password", level: .low), level: .low, summary: "one", group: [], events: [], firstEventTime: now, lastEventTime: now, detectedAt: now, late: false)
            try await store.append(alert, at: now)
            try await store.markDeadLettered("alert-1", reason: "webhook https://x/…: HTTP 400: the receiver refused this alert's body", at: now)
            try await store.setStatus(OutboxChannelStatus(disabled: .init(reason: "HTTP 410 Gone", since: now)))
        }
        let (listCode, list) = await run(["outbox", "list"], context)
        #expect(listCode == .ok)
        #expect(list.out.hasPrefix("stdout: 0 pending, 1 dead-lettered — DISABLED since 2026-08-29T10:40:02Z: HTTP 410 Gone\n"), "\(list.out)")
        #expect(list.out.contains("  dead     alert-1  test-failed  2026-08-29T10:40:02Z  webhook https://x/…: HTTP 400: the receiver refused this alert's body\n"))
        let (_, json) = await run(["outbox", "list", "--json"], context)
        let listed = try JSONValue.parse(Data(json.out.utf8))
        #expect(listed.value(atPath: "notifiers.0.deadLetters.0.id") == .string("alert-1"))

        // While an agent holds the state directory, nothing is changed under it.
        let held = try StateDirectoryLock.acquire(stateDirectory: URL(fileURLWithPath: context.stateDirectory))
        let (heldCode, refused) = await run(["outbox", "retry"], context)
        // A second daemon is refused, and says so (a second cron poll steps aside with 0).
        let (daemonCode, daemon) = await run(["run"], context)
        held.release()
        #expect(daemonCode == .failure)
        #expect(daemon.err.contains("is already running on this state directory"), "\(daemon.err)")
        #expect(heldCode == .failure)
        #expect(refused.err.contains("has its outboxes open; stop it (systemctl stop tophhie-watch), run this again, then start it"), "\(refused.err)")

        let (retryCode, retry) = await run(["outbox", "retry", "--id", "alert-1"], context)
        #expect(retryCode == .ok, "\(retry.err)")
        #expect(retry.out == "stdout: 1 requeued (alert-1)\n")
        let (againCode, again) = await run(["outbox", "retry"], context)
        #expect(againCode == .ok)
        #expect(again.out == "No dead letters.\n")
        // An id that is not there is not done: exit 1, and the id named.
        let (missingCode, missing) = await run(["outbox", "retry", "--id", "alert-1", "--id", "nope"], context)
        #expect(missingCode == .failure)
        #expect(missing.err.contains("no dead letter has the ids alert-1, nope"), "\(missing.err)")

        let (enableCode, enable) = await run(["outbox", "enable", "stdout"], context)
        #expect(enableCode == .ok)
        #expect(enable.out == "stdout enabled; 1 pending alert go with the next poll.\n")
        let (pollCode, poll) = await run(["poll"], context)
        #expect(pollCode == .ok, "\(poll.err)")
        #expect(poll.out.contains("one"), "the requeued alert was delivered")
        let (unknown, unknownOut) = await run(["outbox", "enable", "nope"], context)
        #expect(unknown == .usage)
        #expect(unknownOut.err.contains("no notifier named 'nope'; configured: stdout"))
    }
}
