import Foundation
import TophhieAuth
import TophhieAgent
import TophhieJSON
import TophhieReplay
import TophhieReport
import TophhieRules
import TophhieSystem

/// `tophhie-watch report`: one self-contained HTML page of your sign-ins and what was odd.
enum ReportCommand: CLICommand {
    struct Options: OptionGroup {
        var connection = ConnectionOptions()
        var since: Option<TimeInterval?> = .duration("since", like: "7d or 30d", positive: true, help: "how far back, e.g. 7d or 30d (default 30d)")
        var out: Option<String?> = .file("out", help: "where to write the page (default tophhie-watch-report-<date>.html here)")
        var from: Option<String?> = .file("from", help: "read the sign-ins from a file or export (as replay reads it) instead of Graph")
        var rules = ConnectionOptions.rules
        var input = ExportInput()
    }

    static let about = CommandAbout(
        path: ["report"],
        summary: "Write one self-contained HTML page: a map, a timeline and the alerts of your sign-ins",
        discussion: """
        Reads your sign-ins of the period from Graph (as 'history' does, both streams with
        graph.api beta) or, with --from, from a file or export, runs the rules over them as the
        agent would, and writes one HTML file: a summary, a world map of the places (circles
        sized by sign-ins, coloured by outcome, impossible travel joined by lines, new places
        ringed) with the same figures as a table, a timeline per day with the two streams apart
        and the alerts marked, an hour-by-weekday grid, the alerts newest first with their
        sign-ins, and the countries, devices, apps and addresses with when each was first and
        last seen. The page loads nothing: no script, no font, no image, no request, and a
        Content-Security-Policy that forbids them. Every name from the log is shown as text.
        The file is written 0600: it holds your sign-in history.

        examples:
          tophhie-watch report
          tophhie-watch report --since 7d --out week.html
          tophhie-watch report --from InteractiveSignIns_2024-05-01_2024-05-31.csv
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let span = options.since ?? 30 * 86_400
        let now = io.clock.now()
        let rulePaths = options.rules.isEmpty ? ConnectionOptions.defaultRulePaths(io) : options.rules
        let rules = try RuleFiles.loadRunnable(rulePaths, io: io, connection: options.connection)
        let scratchFolder = io.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var scratch: String?
        var export: ExportConversion?
        defer {
            export?.remove()
            if let scratch { try? FileManager.default.removeItem(atPath: scratch) }
        }
        let path: String
        // Read from Graph, the days past the tenant's retention are shaded: no sign-in can be there.
        var retentionDays: Int?
        if let file = options.from {
            export = try await ExportInput.prepare(file, options: options.input, io: io, command: "report")
            path = export?.path ?? file
        } else {
            // Graph's sign-ins of the period, written where replay reads them.
            let configuration = try ConnectionOptions.agentConfiguration(options.connection, rules: options.rules, io: io)
            retentionDays = configuration.retentionDays
            let auth = try configuration.authConfiguration()
            let client = TophhieAuth(configuration: auth, transport: io.transport, clock: io.clock)
            let fetch = try await client.fetchSignIns(since: now.addingTimeInterval(-span))
            let file = (scratchFolder as NSString).appendingPathComponent("tophhie-report-\(UUID().uuidString).jsonl")
            var lines = Data()
            for event in fetch.events {
                lines.append(event.json.canonicalData())
                lines.append(UInt8(ascii: "\n"))
            }
            let written = lines
            guard try await BlockingWork.shared.run({ FileManager.default.createFile(atPath: file, contents: written, attributes: [.posixPermissions: 0o600]) }) else {
                throw UsageError("cannot write the sign-ins read to '\(file)'")
            }
            scratch = file
            path = file
        }
        // The page's fields are read while the rules replay the same file: two passes side by side.
        let reading = Task { try await BlockingWork.shared.run { try ReportInput.read(path) } }
        let collected = AlertCollector()
        do {
            _ = try await Replay.run(path, rules: rules, settings: EngineSettings(), engine: try EngineChoice.named(in: io, default: .plain), write: { collected.add($0) })
        } catch let error as ReplayFileError {
            reading.cancel()
            throw UsageError(options.from.map { ExportInput.naming($0, in: error.message, for: export) } ?? error.message)
        }
        let input: ReportInput.Read
        do { input = try await reading.value } catch let error as ReportInputError {
            throw UsageError(options.from.map { ExportInput.naming($0, in: error.description, for: export) } ?? error.description)
        }
        // A file's period ends at its last sign-in, not at today.
        let end = options.from == nil ? now : (input.signIns.map(\.time).max() ?? now)
        let floor = retentionDays.map { end.addingTimeInterval(-Double($0) * 86_400) }
        let digest = SignInDigest(signIns: input.signIns, alerts: collected.alerts, from: end.addingTimeInterval(-span), to: end, retentionFloor: floor)
        let out = options.out ?? "tophhie-watch-report-\(GraphTimestamp.filterText(now).prefix(10)).html"
        let size: Int
        do {
            size = try await BlockingWork.shared.run { try ReportPage.write(digest, to: out, generatedAt: now) }
        } catch {
            throw UsageError("cannot write the report to '\(out)': \(error)")
        }
        io.out("wrote \(out): \(digest.signIns) sign-ins, \(digest.places.count) places, \(digest.alerts.count) alerts, \(digest.days.count) days (\(size / 1024) KiB)\n")
        return .ok
    }
}

/// Alerts a replay writes, kept for the report.
final class AlertCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [Alert] = []
    func add(_ alert: Alert) { lock.withLock { kept.append(alert) } }
    var alerts: [Alert] { lock.withLock { kept } }
}
