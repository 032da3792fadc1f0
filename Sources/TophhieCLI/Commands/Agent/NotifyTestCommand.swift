import Foundation
import TophhieAgent
import TophhieRules

/// `notify test`: a sample alert through the configured notifiers, each result reported.
enum NotifyTestCommand: CLICommand {
    static let spec = CommandSpec(
        path: ["notify", "test"],
        summary: "Send a sample alert through the configured notifiers and report each result",
        options: ConnectionOptions.specs + [OptionSpec("notifier", value: "NAME", help: "only this notifier")],
        discussion: """
        Sends directly (not through the outbox) so you see each receiver's answer at once. The
        sample is a high-level 'failure-burst' alert with made-up events; its id starts with
        'test-' so receivers can tell it apart.

        examples:
          tophhie-watch notify test --config /etc/tophhie-watch/config.yml
          tophhie-watch notify test --notifier siem
        """)

    static func sampleAlert(now: Date) -> Alert {
        let events = (0..<5).map { index in
            AlertEvent(id: "test-event-\(index + 1)", time: now.addingTimeInterval(Double(index - 5) * 60), errorCode: 50126, app: "OfficeHome", ipAddress: "203.0.113.\(10 + index)", location: "Lagos, NG", device: "Firefox 115.0 on Linux")
        }
        return Alert(id: "test-\(Int(now.timeIntervalSince1970))", rule: AlertRule(id: "failure-burst", title: "Burst of failed sign-ins (test alert)", level: .high, tags: ["attack.credential-access", "attack.t1110"], author: "Tophhie Watch"), level: .high, summary: "TEST: 5 failed sign-ins from 203.0.113.0/24 in 5m — sent by 'tophhie-watch notify test'", group: [AlertGroupValue(field: "userPrincipalName", value: "jane@contoso.com")], events: events, firstEventTime: events.first!.time, lastEventTime: events.last!.time, detectedAt: now, late: false)
    }

    static func run(_ arguments: ParsedArguments, io: CommandIO) async throws -> ExitCode {
        let configuration = try ConnectionOptions.agentConfiguration(arguments, io: io)
        var entries = configuration.notifiers
        if let only = arguments.value("notifier") {
            entries = entries.filter { $0.name == only }
            guard !entries.isEmpty else {
                throw UsageError("no notifier named '\(only)'; configured: \(configuration.notifiers.map(\.name).joined(separator: ", "))")
            }
        }
        let clock = io.clock
        let factory = NotifierFactory(environment: io.environment, outputIsTerminal: io.outIsTerminal, write: io.alertOut, now: { clock.now() }, transport: io.transport)
        let alert = sampleAlert(now: clock.now())
        var failures = 0
        for entry in entries {
            let notifier: any Notifier
            do { notifier = try factory.make(entry).0 } catch {
                failures += 1
                io.err("\(entry.name) (\(entry.type)): NOT SENT — \(error)\n")
                continue
            }
            for warning in factory.warnings(entry) { io.err(warning + "\n") }
            do {
                try await notifier.deliver(alert)
                io.err("\(entry.name) (\(entry.type)): delivered\n")
            } catch {
                failures += 1
                io.err("\(entry.name) (\(entry.type)): FAILED — \(error)\n")
            }
        }
        return failures == 0 ? .ok : .failure
    }
}
