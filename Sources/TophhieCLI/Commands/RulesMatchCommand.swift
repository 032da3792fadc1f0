import Foundation
import TophhieAgent
import TophhieJSON
import TophhieReplay
import TophhieRules
import TophhieSystem

/// `tophhie-watch rules match FILE`: which sign-ins each detection rule selects, on its own.
enum RulesMatchCommand: CLICommand {
    struct Options: OptionGroup {
        var rules: Option<[String]> = .list("rules", value: "PATH", kind: .path, help: "rule file or folder (default $TOPHHIE_RULES, ./rules, the installed rules, or the pack built in); repeatable")
        var input = ExportInput()
        var format = OutputFormat.option(help: "text lines (default) or one JSON object per line")
    }

    static let readsOnSeveralThreads = true
    static let about = CommandAbout(
        path: ["rules", "match"],
        summary: "List the sign-ins each detection rule selects, without windows or suppression.",
        positionals: "FILE",
        positionalKind: .file,
        discussion: """
        Reads FILE as replay does (a Graph page, a JSON array, JSON lines or a poll timeline) and
        prints every (rule, sign-in) pair where the rule's detection condition holds: what a
        Sigma backend's query would select. Correlations, suppression and alert grouping are not
        applied; use replay for the alerts. An id that repeats is listed once per rule.

        \(ExportInput.discussion)

        JSON lines carry rule (id), title, event (the sign-in id) and time.

        examples:
          tophhie-watch rules match signins.json --rules rules/mfa-denied.yml
          tophhie-watch rules match signins.json --rules ~/sigma/rules/cloud/azure --format json
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        guard options.positionals.count == 1, let file = options.positionals.first else {
            throw UsageError(options.positionals.isEmpty ? "give the sign-in FILE" : "give exactly one sign-in FILE")
        }
        let format = options.format
        let rulePaths = options.rules.isEmpty ? ConnectionOptions.defaultRulePaths(io) : options.rules
        let set = try RuleFiles.loadRunnable(rulePaths, io: io, warnings: ("rules match", options.input.strict))
        func line(_ match: DetectionMatch) -> String {
            if format == .json {
                let line: JSONValue = .object([
                    "rule": .string(match.ruleID), "title": .string(match.title),
                    "event": .string(match.eventID), "time": .string(GraphTimestamp.alertText(match.eventTime)),
                ])
                return ControlCharacterEscaping.hardenJSON(String(decoding: line.canonicalData(), as: UTF8.self)) + "\n"
            }
            return ControlCharacterEscaping.escape("\(match.ruleID) \(match.eventID) \(GraphTimestamp.alertText(match.eventTime))") + "\n"
        }
        let choice = try EngineChoice.named(in: io, default: .fast)
        let export = try await ExportInput.prepare(file, options: options.input, io: io, command: "rules match", streaming: choice == .fast)
        defer { export?.remove() }
        if let export, export.records == 0 {
            io.err("rules match: 0 event(s), \(set.ruleCount) rule(s): no sign-in to read\n")
            return .ok
        }
        // The matches are gathered before any is printed, so a record found broken late prints
        // nothing half-way.
        let found: (outcome: ReplayOutcome, matches: [DetectionMatch])
        do {
            if let index = export?.index {
                found = try await Replay.matches(export: index, rules: set)
            } else {
                found = try await Replay.matches(export?.path ?? file, rules: set, engine: choice)
            }
        } catch let error as ReplayFileError {
            throw UsageError(ExportInput.naming(file, in: error.message, for: export))
        }
        let (eventCount, matches) = (found.outcome.events, found.matches)
        for match in matches { io.out(line(match)) }
        let rulesMatching = Set(matches.map(\.ruleID)).count
        io.err("rules match: \(eventCount) event(s), \(set.detections.count) detection rule(s): \(matches.count) match(es) by \(rulesMatching) rule(s)\n")
        return .ok
    }
}
