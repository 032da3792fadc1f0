import Foundation
import TophhieAgent
import TophhieAuth
import TophhieJSON
import TophhieReplay
import TophhieRules
import TophhieSystem

/// `tophhie-watch replay FILE --rules PATH…`: runs the agent's per-poll pipeline over a file.
enum ReplayCommand: CLICommand {
    struct Options: OptionGroup {
        var rules: Option<[String]> = .list("rules", value: "PATH", kind: .path, help: "rule file or folder (default $TOPHHIE_RULES, ./rules, the installed rules, or the pack built in); repeatable")
        var input = ExportInput()
        var format = OutputFormat.option(help: "text lines (default) or one JSON alert per line")
        var lookback: Option<TimeInterval?> = .duration("lookback", like: "24h or 90m", help: "how long windows wait for late events (default 24h)")
        var verbose: Option<Bool> = .flag("verbose", help: "say how the file was read, and why each faster way gave way")
    }

    static let readsOnSeveralThreads = true
    static let about = CommandAbout(
        path: ["replay"],
        summary: "Run rules over recorded sign-ins exactly as the agent would, and print the alerts.",
        positionals: "FILE",
        positionalKind: .file,
        discussion: """
        FILE is a Graph page {"value":[…]}, a JSON array or JSON lines of signIn objects (one poll
        at the latest event time), or a poll timeline {"polls":[{"at":"<ISO time>","events":[…]},…]}
        where each poll is what Graph returned at that time; events may repeat across polls and
        arrive long after they happened. Each poll is deduplicated by id, ordered by event time
        and run through the engine with now = the poll time.

        JSON alerts carry id, kind, rule{id,title,level,tags,author,description}, author, level,
        summary, group, events (ids), eventDetails, firstEventTime, lastEventTime, detectedAt, late
        and lateBySeconds (the README's alert schema).

        \(ExportInput.discussion)

        examples:
          tophhie-watch replay signins.json
          tophhie-watch replay timeline.json --rules rules/ --rules my-rules/ --format json
          tophhie-watch replay SigninLogs.csv
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        guard options.positionals.count == 1, let file = options.positionals.first else {
            throw UsageError(options.positionals.isEmpty ? "give the replay FILE" : "give exactly one replay FILE")
        }
        let format = options.format
        var settings = EngineSettings()
        if let lookback = options.lookback { settings.lookback = lookback }
        let rulePaths = options.rules.isEmpty ? ConnectionOptions.defaultRulePaths(io) : options.rules
        let set = try RuleFiles.loadRunnable(rulePaths, io: io, warnings: ("replay", options.input.strict))
        let choice = try EngineChoice.named(in: io, default: .fast)
        // The fast engine reads an export's records from the export itself; the plain one, which
        // reads a file whole, from Graph records written for it. The records of a Graph file and
        // of a Log Analytics export the fast engine checks as it reads them, and the file is
        // checked first only when one needs it (`--strict` stops at such a record before any
        // alert).
        let checkingAsRead = choice == .fast && !options.input.strict
        var export = try await ExportInput.prepare(file, options: options.input, io: io, command: "replay", streaming: choice == .fast,
                                                   checkingFirst: !checkingAsRead)
        defer { export?.remove() }
        if let export, export.records == 0 {
            if export.index?.checked == false { ExportInput.tell(export, file: file, io: io, command: "replay") }
            io.err("replay: 0 event(s), \(set.ruleCount) rule(s): no sign-in to read\n")
            return .ok
        }
        let progress = io.errIsTerminal
        if progress { io.err("replay: reading \(file)…\r") }
        // Gathered when no progress line is drawn between the alerts; written before the summary.
        let output = GatheredOutput(write: io.out)
        defer { output.flush() }
        // What a line takes from its rule, kept for the next: used under the output's lock.
        let ruleLines = AlertRuleLines()
        let write: @Sendable (Alert) -> Void = { alert in
            if progress {
                io.err("\u{1B}[2K")
                io.out(line(alert, format: format))
            } else {
                output.add { append(alert, format: format, to: &$0, rules: ruleLines) }
            }
        }
        let showStatus: @Sendable (String) -> Void = { text in io.err("\u{1B}[2K" + text + "\r") }
        let status = progress ? showStatus : nil
        var outcome: ReplayOutcome
        do {
            if let index = export?.index {
                outcome = try await Replay.run(export: index, rules: set, settings: settings, write: write)
                if outcome.stoppedForCheck == nil, !index.checked, var told = export {
                    // A sampled file's records are counted as the replay reads them.
                    if index.isSampled { told.records = outcome.events }
                    ExportInput.tell(told, file: file, io: io, command: "replay")
                }
                if let written = outcome.stoppedForCheck {
                    // As a Graph file's, below.
                    let notes = outcome.notes
                    export?.remove()
                    export = try await ExportInput.prepare(file, options: options.input, io: io, command: "replay", streaming: true)
                    guard let checked = export?.index else { preconditionFailure("an export read again is read the same way") }
                    outcome = try await Replay.run(export: checked, rules: set, settings: settings, passingOver: written, write: write)
                    outcome.notes = notes + ["checked first, then replayed again, the \(written) alert(s) written before passed over"] + outcome.notes
                }
            } else {
                outcome = try await Replay.run(export?.path ?? file, rules: set, settings: settings, engine: choice, checkingRecords: checkingAsRead && export == nil,
                                               write: write, progress: status)
                if let written = outcome.stoppedForCheck {
                    // Checked as the export readers check, its skipped records named, and replayed
                    // again; the alerts already written are the first it gives, passed over.
                    let notes = outcome.notes
                    export = try await ExportInput.prepare(file, options: options.input, io: io, command: "replay", streaming: true)
                    outcome = try await Replay.run(export?.path ?? file, rules: set, settings: settings, engine: choice, passingOver: written,
                                                   write: write, progress: status)
                    outcome.notes = notes + ["checked first, then replayed again, the \(written) alert(s) written before passed over"] + outcome.notes
                }
            }
        } catch let error as ReplayFileError {
            throw UsageError(ExportInput.naming(file, in: error.message, for: export))
        }
        output.flush()
        if progress { io.err("\u{1B}[2K") }
        if options.verbose { outcome.notes.forEach { io.err("replay: \(ExportInput.naming(file, in: $0, for: export))\n") } }
        let unknown = outcome.unknownPlaces.flatMap { $0 > 0 ? "; " + TophhieSignInEvent.unknownLocationsText($0) : nil } ?? ""
        io.err("replay: \(outcome.events) event(s) in \(outcome.polls) poll(s), \(set.ruleCount) rule(s): \(outcome.alerts) alert(s)\(unknown)\n")
        if let late = outcome.lateArrivals {
            io.err("replay: \(late.sentence(lookback: settings.lookback))\n")
        }
        return .ok
    }

    /// One alert as replay prints it: a JSON line, or the agent's stdout line.
    static func line(_ alert: Alert, format: OutputFormat) -> String {
        var bytes: [UInt8] = []
        append(alert, format: format, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `line`'s bytes appended to `bytes`: a JSON line is written straight into them.
    /// - Parameter rules: what the lines before took from their rule, kept for this one.
    static func append(_ alert: Alert, format: OutputFormat, to bytes: inout [UInt8], rules: AlertRuleLines = AlertRuleLines()) {
        guard format == .json else {
            bytes.append(contentsOf: (textLine(alert) + "\n").utf8)
            return
        }
        let start = bytes.count
        AlertJSON.write(alert, into: &bytes, rules: rules)
        ControlCharacterEscaping.endHardenedJSONLine(&bytes, from: start)
    }

    static func textLine(_ alert: Alert) -> String {
        // The agent's stdout line, so replay output reads the same as live alerts.
        "\(GraphTimestamp.alertText(alert.detectedAt)) \(AlertTextLine.body(alert))"
    }
}
