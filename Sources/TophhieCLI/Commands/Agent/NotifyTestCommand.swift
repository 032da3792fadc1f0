import Foundation
import TophhieAgent
import TophhieRules
import TophhieJSON

/// `notify test`: a sample alert through the configured notifiers, each result reported.
enum NotifyTestCommand: CLICommand {
    struct Options: OptionGroup {
        var connection = ConnectionOptions()
        var notifier: Option<String?> = .text("notifier", value: "NAME", help: "only this notifier")
        var json: Option<Bool> = .flag("json", help: "print one JSON object: each notifier's result")
    }

    static let about = CommandAbout(
        path: ["notify", "test"],
        summary: "Send a sample alert through the configured notifiers and report each result",
        discussion: """
        Sends directly (not through the outbox) so you see each receiver's answer at once. The
        sample is a high-level 'failure-burst' alert with made-up events; its id starts with
        'test-' so receivers can tell it apart.

        examples:
          tophhie-watch notify test --config /etc/tophhie-watch/config.yml
          tophhie-watch notify test --notifier siem
          tophhie-watch notify test --json | jq '.notifiers[] | select(.result != "delivered")'

        exit codes: 0 every notifier delivered, 1 one failed to deliver, 2 a notifier's
        configuration is wrong (a missing secret file, a bad option).
        """)

    static func sampleAlert(now: Date) -> Alert {
        let events = (0..<5).map { index in
            AlertEvent(id: "test-event-\(index + 1)", time: now.addingTimeInterval(Double(index - 5) * 60), errorCode: 50126, app: "OfficeHome", ipAddress: "203.0.113.\(10 + index)", location: "Lagos, NG", device: "Firefox 115.0 on Linux")
        }
        // Unique per run, even twice in a second: a receiver that dedupes by id drops a repeat.
        return Alert(id: "test-\(Int(now.timeIntervalSince1970))-\(UUID().uuidString.prefix(8).lowercased())", rule: AlertRule(id: "failure-burst", title: "Burst of failed sign-ins (test alert)", level: .high, tags: ["attack.credential-access", "attack.t1110"], author: "Tophhie Watch"), level: .high, summary: "TEST: 5 failed sign-ins from 203.0.113.0/24 in 5m — sent by 'tophhie-watch notify test'", group: [AlertGroupValue(field: "userPrincipalName", value: "jane@contoso.com")], events: events, firstEventTime: events.first!.time, lastEventTime: events.last!.time, detectedAt: now, late: false)
    }

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        // The notifiers are the agent's: every one, or those of the account named, whose
        // sample alert then says whose it is as that account's alerts will.
        let configuration = try ConnectionOptions.watchedConfiguration(options.connection, io: io)
        var entries = configuration.notifiers
        if let only = options.notifier {
            entries = entries.filter { $0.name == only }
            guard !entries.isEmpty else {
                throw UsageError("no notifier named '\(only)'; configured: \(configuration.notifiers.map(\.name).joined(separator: ", "))")
            }
        }
        let clock = io.clock
        let json = options.json
        // With --json, standard output carries the one result object; a stdout notifier's sample
        // alert goes to standard error instead.
        let err = io.err, alertOut = io.alertOut
        let write: @Sendable (String) throws -> Void = { @Sendable text in if json { err(text) } else { try alertOut(text) } }
        let factory = NotifierFactory(environment: io.environment, outputIsTerminal: io.outIsTerminal, write: write, now: { clock.now() }, transport: io.transport)
        var alert = sampleAlert(now: clock.now())
        if let account = configuration.account { alert = alert.attributed(to: AlertAccount(name: account), distinguishingID: true) }
        var results: [JSONValue] = []
        var misconfigured = 0, failed = 0
        func report(_ entry: NotifierConfiguration, _ result: String, _ detail: String?, warnings: [String] = []) {
            if json {
                var object: [String: JSONValue] = ["name": .string(entry.name), "type": .string(entry.type), "result": .string(result)]
                if let detail { object["detail"] = .string(detail) }
                if !warnings.isEmpty { object["warnings"] = .array(warnings.map(JSONValue.string)) }
                results.append(.object(object))
            } else {
                for warning in warnings { io.err(warning + "\n") }
                io.err("\(entry.name) (\(entry.type)): \(result == "delivered" ? "delivered" : result == "misconfigured" ? "NOT SENT" : "FAILED")\(detail.map { " — \($0)" } ?? "")\n")
            }
        }
        for entry in entries {
            let notifier: any Notifier
            do { notifier = try factory.make(entry).0 } catch {
                misconfigured += 1
                report(entry, "misconfigured", "\(error)")
                continue
            }
            if let why = NotifierFactory.preflight(notifier) {
                misconfigured += 1
                report(entry, "misconfigured", "notifier '\(entry.name)': \(why)")
                continue
            }
            do {
                try await notifier.deliver(alert)
                report(entry, "delivered", nil, warnings: factory.warnings(entry))
            } catch {
                failed += 1
                report(entry, "failed", "\(error)", warnings: factory.warnings(entry))
            }
        }
        let code: ExitCode = misconfigured > 0 ? .usage : failed > 0 ? .failure : .ok
        if json {
            io.out(String(decoding: JSONValue.object(["exitCode": .int(Int64(code.rawValue)), "notifiers": .array(results)]).canonicalData(), as: UTF8.self) + "\n")
        }
        return code
    }
}
