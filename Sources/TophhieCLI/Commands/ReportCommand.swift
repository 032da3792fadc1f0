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
        var tz: Option<String?> = .text("tz", value: "ZONE", help: "show times in this zone, an IANA name such as Europe/London or UTC, with UTC beside (default the host's)")
        var rules = ConnectionOptions.rules
        var input = ExportInput()
    }

    static let readsOnSeveralThreads = true
    static let about = CommandAbout(
        path: ["report"],
        summary: "Write one self-contained HTML page: a map, a timeline and the alerts of your sign-ins",
        discussion: """
        Reads your sign-ins of the period from Graph (as 'history' does, both streams with
        graph.api beta) or, with --from, from a file or export, runs the rules over them as the
        agent would, and writes one HTML file. It opens with the answer: a verdict line (\"2 high
        alerts in the last 30 days\" or \"nothing found between ... and ...\"), the account, the period,
        and the alerts newest first with what to do and their sign-ins. Then a summary, a world map of the places (circles
        sized by sign-ins, coloured by outcome, impossible travel joined by lines, new places
        ringed) with the same figures as a table, a timeline per day with the two streams apart,
        the alerts marked and (with the agent's state at hand) its coverage gaps and the place
        rules' learning shaded, an hour-by-weekday grid, and the countries, devices, apps and addresses with when each was first and
        last seen. The page loads nothing: no script, no font, no image, no request, and a
        Content-Security-Policy that forbids them. Every name from the log is shown as text.
        The file is written 0600: it holds your sign-in history. Times are shown in --tz's zone
        (default the host's) with UTC beside. A quiet period is a page that says so.

        examples:
          tophhie-watch report
          tophhie-watch report --since 7d --out week.html --tz Europe/London
          tophhie-watch report --from InteractiveSignIns_2024-05-01_2024-05-31.csv
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let time = try zone(options.tz, io: io)
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
        let progress = ReadingProgress("report", io: io)
        // A read that waits on the network (a throttled month) still says how far it has got.
        let ticker = io.errIsTerminal ? Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                progress.tick()
            }
        } : nil
        defer {
            ticker?.cancel()
            progress.finish()
        }
        var path: String?
        // Read from Graph, the days past the tenant's retention are shaded: no sign-in can be there.
        var retentionDays: Int?
        var context = ReportContext(generatedAt: now, time: time, endsNow: options.from == nil)
        var agentState: AgentState?
        if let file = options.from {
            export = try await ExportInput.prepare(file, options: options.input, io: io, command: "report")
            path = export?.path ?? file
        } else {
            // Graph's sign-ins of the period, written where replay reads them.
            let configuration = try ConnectionOptions.agentConfiguration(options.connection, rules: options.rules, io: io)
            retentionDays = configuration.retentionDays
            let auth = try configuration.authConfiguration()
            let client = TophhieAuth(configuration: auth, transport: CountingTransport(inner: io.transport, progress: progress), clock: io.clock)
            let fetch = try await client.fetchSignIns(since: now.addingTimeInterval(-span))
            // Whose sign-ins: the profile names the person, the session at least the account.
            if let profile = try? await client.getUserProfile() {
                context.accountName = profile.displayName
                context.userPrincipalName = profile.userPrincipalName
            } else if let session = try? await client.currentSession() {
                context.userPrincipalName = session.userPrincipalName
            }
            // The agent's own record, when it runs here: learning and coverage gaps.
            let stateDirectory = configuration.stateDirectory
            agentState = try? await BlockingWork.shared.run { try StateStore(stateDirectory: stateDirectory).load() }
            context.placeLearning = agentState?.placeLearning
            if !fetch.events.isEmpty {
                let file = (scratchFolder as NSString).appendingPathComponent("tophhie-report-\(UUID().uuidString).jsonl")
                var lines = Data()
                for event in fetch.events {
                    lines.append(event.json.canonicalData())
                    lines.append(UInt8(ascii: "\n"))
                }
                let written = lines
                guard try await BlockingWork.shared.run({ FileManager.default.createFile(atPath: file, contents: written, attributes: [.posixPermissions: 0o600]) }) else {
                    throw UsageError("cannot write the sign-ins read to a scratch file in '\(scratchFolder)'")
                }
                scratch = file
                path = file
            }
        }
        var input = ReportInput.Read(signIns: [], skipped: 0)
        let collected = AlertCollector()
        // A quiet period from Graph has no file to read: its page says so.
        if let path {
            // The page's fields are read while the rules replay the same file: two passes side by side.
            let reading = Task { try await BlockingWork.shared.run { try ReportInput.read(path, progress: { progress.update($0) }) } }
            do {
                _ = try await Replay.run(path, rules: rules, settings: EngineSettings(), engine: try EngineChoice.named(in: io, default: .plain), write: { collected.add($0) })
            } catch let error as ReplayFileError {
                reading.cancel()
                throw UsageError(options.from.map { ExportInput.naming($0, in: error.message, for: export) } ?? error.message)
            }
            do { input = try await reading.value } catch let error as ReportInputError {
                throw UsageError(options.from.map { ExportInput.naming($0, in: error.description, for: export) } ?? error.description)
            }
        }
        // A file's period ends at its last sign-in, not at today.
        let end = options.from == nil ? now : (input.signIns.map(\.time).max() ?? now)
        let floor = retentionDays.map { end.addingTimeInterval(-Double($0) * 86_400) }
        var digest = SignInDigest(signIns: input.signIns, alerts: collected.alerts, from: end.addingTimeInterval(-span), to: end, retentionFloor: floor, time: time)
        if let agentState {
            for gap in agentState.coverageGaps { digest.shade(.gap, from: gap.from, to: gap.to) }
            if let learning = agentState.placeLearningPeriod { digest.shade(.learning, from: learning.start, to: learning.end) }
        }
        let out = options.out ?? "tophhie-watch-report-\(GraphTimestamp.filterText(now).prefix(10)).html"
        let size: Int
        let page = context, written = digest
        do {
            size = try await BlockingWork.shared.run { try ReportPage.write(written, to: out, context: page) }
        } catch {
            throw UsageError("cannot write the report to '\(out)': \(error)")
        }
        progress.finish()
        io.out("wrote \(out): \(ReportPage.verdict(digest, context: context)); \(words(digest.signIns, "sign-in")), \(words(digest.places.count, "place")), \(words(digest.alerts.count, "alert")), \(words(digest.days.count, "day")) (\(size / 1024) KiB)\n")
        return .ok
    }

    static func words(_ n: Int, _ one: String) -> String { "\(n) \(one)\(n == 1 ? "" : "s")" }

    /// The zone `--tz` names (an IANA name or UTC), else the host's (`TZ`, then the system's).
    /// - Throws: `UsageError` for a name the zone database does not know.
    static func zone(_ name: String?, io: CommandIO) throws -> ReportTime {
        if let name {
            guard let zone = TimeZone(identifier: name), !name.isEmpty else {
                throw UsageError("option '--tz' takes a time zone name such as Europe/London or UTC, not '\(name)'")
            }
            return ReportTime(zone: zone)
        }
        if let host = io.environment["TZ"].flatMap({ TimeZone(identifier: $0.hasPrefix(":") ? String($0.dropFirst()) : $0) }) { return ReportTime(zone: host) }
        return ReportTime(zone: .current)
    }
}

/// Alerts a replay writes, kept for the report.
final class AlertCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [Alert] = []
    func add(_ alert: Alert) { lock.withLock { kept.append(alert) } }
    var alerts: [Alert] { lock.withLock { kept } }
}
