import Foundation
import TophhieAgent
import TophhieJSON

/// `outbox list`: what each notifier has queued and given up on.
enum OutboxListCommand: CLICommand {
    struct Options: OptionGroup {
        var connection = ConnectionOptions()
        var notifier: Option<String?> = .text("notifier", value: "NAME", help: "only this notifier")
        var json: Option<Bool> = .flag("json", help: "print one JSON object")
    }

    static let about = CommandAbout(
        path: ["outbox", "list"],
        summary: "List each notifier's pending alerts and dead letters",
        discussion: """
        Reads the outboxes only (nothing is written, no lock), so it is safe beside a running
        agent. A dead letter is an alert a notifier gave up on: a body the receiver refused, or
        one still failing after 3 days. 'outbox retry' queues them again.

        examples:
          tophhie-watch outbox list
          tophhie-watch outbox list --notifier siem --json
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let configuration = try ConnectionOptions.agentConfiguration(options.connection, io: io)
        let names = try OutboxCommandSupport.notifierNames(only: options.notifier, configuration)
        var channels: [JSONValue] = []
        for name in names {
            let store = try OutboxStore(stateDirectory: configuration.stateDirectory.path, notifier: name, repair: false)
            let pending = try await store.pendingEntries()
            let dead = try await store.deadLetters()
            let status = await store.status
            if options.json {
                func time(_ date: Date?) -> JSONValue { date.map { .string(GraphTimestamp.alertText($0)) } ?? .null }
                channels.append(.object([
                    "name": .string(name),
                    "pending": .array(pending.map { .object(["id": .string($0.alert.id), "rule": .string($0.alert.rule.id), "queuedAt": time($0.appendedAt)]) }),
                    "deadLetters": .array(dead.map { .object(["id": .string($0.alert.id), "rule": .string($0.alert.rule.id), "at": time($0.at), "reason": .string($0.reason)]) }),
                    "retryAfter": time(status.notBefore),
                    "disabled": status.disabled.map { .object(["reason": .string($0.reason), "since": time($0.since)]) } ?? .null,
                ]))
                continue
            }
            var state = ""
            if let disabled = status.disabled { state = " — DISABLED since \(GraphTimestamp.filterText(disabled.since)): \(disabled.reason)" }
            else if let wait = status.notBefore { state = " — waiting until \(GraphTimestamp.filterText(wait)) (Retry-After)" }
            io.out("\(name): \(pending.count) pending, \(dead.count) dead-lettered\(state)\n")
            for entry in pending {
                io.out("  pending  \(entry.alert.id)  \(entry.alert.rule.id)  queued \(GraphTimestamp.filterText(entry.appendedAt))\n")
            }
            for letter in dead {
                io.out("  dead     \(letter.alert.id)  \(letter.alert.rule.id)  \(GraphTimestamp.filterText(letter.at))  \(letter.reason)\n")
            }
        }
        if options.json { io.out(JSONValue.object(["notifiers": .array(channels)]).prettyText() + "\n") }
        return .ok
    }
}

/// `outbox retry`: dead letters back in the queue, delivered by the next poll.
enum OutboxRetryCommand: CLICommand {
    struct Options: OptionGroup {
        var connection = ConnectionOptions()
        var notifier: Option<String?> = .text("notifier", value: "NAME", help: "only this notifier's dead letters")
        var id: Option<[String]> = .list("id", value: "ALERT", help: "only these alert ids (default: all)")
    }

    static let about = CommandAbout(
        path: ["outbox", "retry"],
        summary: "Queue dead-lettered alerts again; the next poll delivers them",
        discussion: """
        Takes the state-directory lock, so stop a running daemon first (its outboxes are open).
        A requeued alert starts a fresh 3-day age and keeps its id: receivers that dedupe by
        webhook-id still see it once.

        examples:
          tophhie-watch outbox retry --notifier siem
          tophhie-watch outbox retry --id 9f0c2d…
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let configuration = try ConnectionOptions.agentConfiguration(options.connection, io: io)
        let names = try OutboxCommandSupport.notifierNames(only: options.notifier, configuration)
        let lock = try OutboxCommandSupport.lock(configuration)
        defer { lock.release() }
        let ids = options.id
        var found = Set<String>()
        for name in names {
            let store = try OutboxStore(stateDirectory: configuration.stateDirectory.path, notifier: name)
            let requeued = try await store.requeueDeadLetters(ids: ids.isEmpty ? nil : Set(ids), at: io.clock.now())
            found.formUnion(requeued)
            if !requeued.isEmpty { io.out("\(name): \(requeued.count) requeued (\(requeued.joined(separator: ", ")))\n") }
        }
        if ids.isEmpty {
            if found.isEmpty { io.out("No dead letters.\n") }
            return .ok
        }
        // An id asked for by name that is not there is a lookup that found nothing: a script
        // must not take it for done.
        let missing = ids.filter { !found.contains($0) }
        guard missing.isEmpty else {
            io.err("tophhie-watch outbox retry: no dead letter has the id\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", ")) ('tophhie-watch outbox list' shows them)\n")
            return .failure
        }
        return .ok
    }
}

/// `outbox enable`: a notifier its receiver disabled (HTTP 410) sends again.
enum OutboxEnableCommand: CLICommand {
    typealias Options = ConnectionOptions

    static let about = CommandAbout(
        path: ["outbox", "enable"],
        summary: "Re-enable a notifier its receiver disabled with HTTP 410, once the receiver is fixed",
        positionals: "NAME",
        discussion: """
        Alerts queued while it was disabled are delivered by the next poll, in order. Also forgets
        a pending Retry-After. Takes the state-directory lock, so stop a running daemon first.

        example:
          tophhie-watch outbox enable team-chat
        """)

    static func run(_ options: ParsedOptions<ConnectionOptions>, io: CommandIO) async throws -> ExitCode {
        let configuration = try ConnectionOptions.agentConfiguration(options, io: io)
        guard options.positionals.count == 1, let name = options.positionals.first else {
            throw UsageError("name one notifier: tophhie-watch outbox enable NAME")
        }
        guard configuration.notifiers.contains(where: { $0.name == name }) else {
            throw UsageError("no notifier named '\(name)'; configured: \(configuration.notifiers.map(\.name).joined(separator: ", "))")
        }
        let lock = try OutboxCommandSupport.lock(configuration)
        defer { lock.release() }
        let store = try OutboxStore(stateDirectory: configuration.stateDirectory.path, notifier: name)
        let before = await store.status
        try await store.setStatus(OutboxChannelStatus())
        let pending = await store.pendingCount
        io.out(before.disabled == nil && before.notBefore == nil ? "\(name) was not disabled.\n" : "\(name) enabled; \(pending) pending alert\(pending == 1 ? "" : "s") go with the next poll.\n")
        return .ok
    }
}

/// What the outbox commands share.
enum OutboxCommandSupport {
    /// The configured notifier names, or the one `--notifier` names.
    static func notifierNames(only: String?, _ configuration: AgentConfiguration) throws -> [String] {
        let all = configuration.notifiers.map(\.name)
        guard let only else { return all }
        guard all.contains(only) else { throw UsageError("no notifier named '\(only)'; configured: \(all.joined(separator: ", "))") }
        return [only]
    }

    /// The state-directory lock; a running agent has its outboxes open, so changing them under it
    /// would be undone by its next write.
    static func lock(_ configuration: AgentConfiguration) throws -> StateDirectoryLock {
        do { return try StateDirectoryLock.acquire(stateDirectory: configuration.stateDirectory) } catch let held as StateDirectoryLock.Held {
            throw OutboxCommandError.agentRunning(held)
        }
    }
}

/// Why an outbox command did nothing.
enum OutboxCommandError: Error, CustomStringConvertible {
    case agentRunning(StateDirectoryLock.Held)

    var description: String {
        switch self {
        case .agentRunning(let held):
            return "the agent\(held.owner.map { " (pid \($0))" } ?? "") holds \(held.path) and has its outboxes open; stop it (systemctl stop tophhie-watch), run this again, then start it"
        }
    }
}
