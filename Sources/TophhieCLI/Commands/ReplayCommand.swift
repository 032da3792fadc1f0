import Foundation
import TophhieAgent
import TophhieJSON
import TophhieRules
import TophhieSystem

/// `tophhie-watch replay FILE --rules PATH…`: runs the agent's per-poll pipeline over a file.
enum ReplayCommand: CLICommand {
    static let spec = CommandSpec(
        path: ["replay"],
        summary: "Run rules over recorded sign-ins exactly as the agent would, and print the alerts.",
        positionals: "FILE",
        options: [
            OptionSpec("rules", value: "PATH", repeatable: true, help: "rule file or folder (default $TOPHHIE_RULES, ./rules, or the installed rules); repeatable"),
            OptionSpec("format", value: "text|json", help: "text lines (default) or one JSON alert per line"),
            OptionSpec("lookback", value: "DURATION", help: "how long windows wait for late events (default 24h)"),
        ],
        discussion: """
        FILE is a Graph page {"value":[…]}, a JSON array or JSON lines of signIn objects (one poll
        at the latest event time), or a poll timeline {"polls":[{"at":"<ISO time>","events":[…]},…]}
        where each poll is what Graph returned at that time; events may repeat across polls and
        arrive long after they happened. Each poll is deduplicated by id, ordered by event time
        and run through the engine with now = the poll time.

        JSON alerts carry id, kind, rule{id,title,level,tags,author,description}, author, level,
        summary, group, events (ids), eventDetails, firstEventTime, lastEventTime, detectedAt, late
        and lateBySeconds (the README's alert schema).

        examples:
          tophhie-watch replay signins.json
          tophhie-watch replay timeline.json --rules rules/ --rules my-rules/ --format json
        """)

    static func run(_ arguments: ParsedArguments, io: CommandIO) async throws -> ExitCode {
        guard arguments.positionals.count == 1, let file = arguments.positionals.first else {
            throw UsageError(arguments.positionals.isEmpty ? "give the replay FILE" : "give exactly one replay FILE")
        }
        let format = arguments.value("format") ?? "text"
        guard format == "text" || format == "json" else {
            throw UsageError("option '--format' takes 'text' or 'json', not '\(format)'")
        }
        var settings = EngineSettings()
        if let text = arguments.value("lookback") {
            guard let duration = RuleDuration.parse(text) else {
                throw UsageError("option '--lookback' takes a duration like 24h or 90m, not '\(text)'")
            }
            settings.lookback = duration.interval
        }
        let rulePaths = arguments.values("rules").isEmpty ? ConnectionOptions.defaultRulePaths(io) : arguments.values("rules")
        let set = try RuleFiles.loadRunnable(rulePaths, io: io)
        let progress = io.errIsTerminal
        if progress { io.err("replay: reading \(file)…\r") }
        let choice = try EngineChoice.named(in: io)
        let engine = Engine(rules: set, settings: settings)
        let evaluator = choice.evaluator(rules: set, settings: settings)
        // A Graph page, an array or JSON lines: two passes over the file, a batch of sign-ins in
        // memory at a time. Anything else, and everything for the reference evaluator (which
        // reads every field of a sign-in and takes a poll at once), is read whole below.
        // Alerts are written as they become final; an attempt that gives up part way is
        // followed by another that passes over what was written.
        let clearProgress = progress
        let writer = ReplayAlertWriter { alert in
            if clearProgress { io.err("\u{1B}[2K") }
            io.out(line(alert, format: format))
        }
        let streamed: (count: Int, outcome: EngineOutcome)?
        do {
            streamed = try await BlockingWork.shared.run { () throws -> (count: Int, outcome: EngineOutcome)? in
                guard choice == .fast else { return nil }
                // A large file in time order is first read from samples of it; when the second
                // pass finds them wrong (a sample inside a sign-in, a sign-in outside its run's
                // times), the file is read with every sign-in found.
                writer.beginAttempt()
                if let sparse = StreamedReplay.openSparse(file), let read = try? sparse.evaluateCounting(engine, emit: writer.emit) {
                    return (read.count, read.outcome)
                }
                guard let replay = StreamedReplay.open(file) else { return nil }
                // A record that no longer reads as it did goes the whole-file way, which names it.
                writer.beginAttempt()
                guard let read = try? replay.evaluateCounting(engine, emit: writer.emit) else { return nil }
                return (read.count, read.outcome)
            }
        } catch let error as FileError {
            throw UsageError(error.description)
        }
        if let streamed {
            if progress { io.err("\u{1B}[2K") }
            io.err("replay: \(streamed.count) event(s) in 1 poll(s), \(set.ruleCount) rule(s): \(writer.count) alert(s)\n")
            if let late = streamed.outcome.lateArrivals {
                io.err("replay: \(late.sentence(lookback: settings.lookback))\n")
            }
            return .ok
        }
        // A poll timeline is read a poll at a time; anything else the streamed reader did not
        // take is read whole. Only what the rules read is built; the rest of each sign-in is
        // walked over.
        let projection = choice == .fast ? engine.eventProjection : .everything
        let timeline = try await BlockingWork.shared.run { StreamedTimeline.open(file, keeping: projection) }
        let input = timeline == nil ? try await BlockingWork.shared.run { try WholeReplayFile.read(file, keeping: projection) } : nil
        let pollCount = timeline?.polls.count ?? input?.polls.count ?? 0
        let eventCount = timeline?.eventCount ?? input?.eventCount ?? 0

        // On a blocking-work thread: a timeline's polls are read from the file as they go.
        let totals = try await BlockingWork.shared.run { () throws -> (alerts: Int, late: LateArrivals?) in
            writer.beginAttempt()
            var state = EngineState()
            var alertCount = 0, processed = 0, index = 0
            var lateEvaluated = 0, lateUnreachable = 0
            var lateRange: (Date, Date)?
            func evaluate(_ poll: ReplayInput.Poll) {
                if progress {
                    io.err("\u{1B}[2Kreplay: poll \(index + 1)/\(pollCount), \(processed)/\(eventCount) events\r")
                }
                let outcome = evaluator.evaluate(state, events: poll.events, now: poll.at, alertOnlyAfter: nil)
                state = outcome.state
                if let late = outcome.lateArrivals {
                    lateEvaluated += late.evaluated
                    lateUnreachable += late.unreachable
                    lateRange = (min(lateRange?.0 ?? late.earliest, late.earliest), max(lateRange?.1 ?? late.latest, late.latest))
                }
                processed += poll.events.count
                alertCount += outcome.alerts.count
                index += 1
                writer.emit(outcome.alerts)
            }
            if let timeline {
                do { try timeline.forEachPoll(evaluate) } catch let error as SignInEventError {
                    throw UsageError("\(file): \(error.message)")
                } catch let error as FileError {
                    throw UsageError(error.description)
                }
            } else {
                input?.polls.forEach(evaluate)
            }
            // The replay meets what a live agent's sweep would: say it rather than drop it.
            let late = lateRange.map { LateArrivals(evaluated: lateEvaluated, unreachable: lateUnreachable, earliest: $0.0, latest: $0.1) }
            return (alertCount, late)
        }
        if progress { io.err("\u{1B}[2K") }
        io.err("replay: \(eventCount) event(s) in \(pollCount) poll(s), \(set.ruleCount) rule(s): \(totals.alerts) alert(s)\n")
        if let late = totals.late {
            io.err("replay: \(late.sentence(lookback: settings.lookback))\n")
        }
        return .ok
    }

    /// One alert as replay prints it: a JSON line, or the agent's stdout line.
    static func line(_ alert: Alert, format: String) -> String {
        (format == "json" ? ControlCharacterEscaping.hardenJSON(AlertJSON.line(alert)) : textLine(alert)) + "\n"
    }

    static func textLine(_ alert: Alert) -> String {
        // The agent's stdout line, so replay output reads the same as live alerts.
        "\(GraphTimestamp.alertText(alert.detectedAt)) \(AlertTextLine.body(alert))"
    }
}
