import Foundation
import TophhieRules
import TophhieSystem

/// `tophhie-watch rules export DIR`: writes the pack built into the binary out, to tune.
enum RulesExportCommand: CLICommand {
    struct Options: OptionGroup {
        var force: Option<Bool> = .flag("force", help: "overwrite files of the same name in DIR")
    }

    static let about = CommandAbout(
        path: ["rules", "export"],
        summary: "Write the rule pack built into the binary to a folder, to tune it.",
        positionals: "DIR",
        positionalKind: .directory,
        discussion: """
        Writes every rule, its test cases and the pack's README to DIR (created when missing).
        Point 'rules:' in the config (or --rules, or TOPHHIE_RULES) at DIR to use the copy; the
        built-in pack is used only when no rules are configured, none are in ./rules and none
        are installed. Nothing is overwritten without --force.

        Exit status: 0 when written, 2 when DIR holds a file of the same name (nothing written)
        or cannot be written.

        examples:
          tophhie-watch rules export ~/.config/tophhie-watch/rules
          tophhie-watch rules check ~/.config/tophhie-watch/rules
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        guard options.positionals.count == 1, let folder = options.positionals.first else {
            throw UsageError(options.positionals.isEmpty ? "give the folder to write the rules to" : "give exactly one folder")
        }
        let targets = BuiltInRulePack.files.map { (path: (folder as NSString).appendingPathComponent($0.name), text: $0.text) }
        let force = options.force
        // Files written on the blocking pool, not Swift's cooperative one.
        try await BlockingWork.shared.run {
            let manager = FileManager.default
            if !force, let existing = targets.first(where: { manager.fileExists(atPath: $0.path) }) {
                throw UsageError("\(existing.path) exists; nothing was written (pass --force to overwrite)")
            }
            do {
                try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
                for target in targets { try Data(target.text.utf8).write(to: URL(fileURLWithPath: target.path)) }
            } catch {
                throw UsageError("cannot write to \(folder): \(error.localizedDescription)")
            }
        }
        io.out("wrote \(targets.count) files (\(BuiltInRulePack.ruleFileCount) rule files, their tests and README.md) to \(folder); point 'rules:' in the config at it\n")
        return .ok
    }
}
