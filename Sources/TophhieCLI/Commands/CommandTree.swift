import Foundation
import TophhieRules
import TophhieSystem

/// Finds the command a command line names and runs it, mapping failures to exit codes.
public enum TophhieCommandLine {
    /// Every command, in the order `--help` lists them.
    static let commands: [any CLICommand.Type] = registeredCommands

    /// The process entry point.
    public static func main() async {
        let code = await run(Array(CommandLine.arguments.dropFirst()), io: .standard())
        exit(code.rawValue)
    }

    /// Whether the command `arguments` name reads a file on several threads at once (replay,
    /// `rules match`, report); `main` asks before any other thread allocates, and limits malloc
    /// to one heap only when it does not (`MallocArenas`).
    public static func readsOnSeveralThreads(_ arguments: [String]) -> Bool {
        find(arguments)?.0.readsOnSeveralThreads ?? false
    }

    /// Runs one command line; the testable core of `main`.
    public static func run(_ arguments: [String], io: CommandIO) async -> ExitCode {
        if arguments == ["--version"] || arguments == ["-V"] {
            io.out(ProductVersion.line)
            return .ok
        }
        // `help poll` is `poll --help`; `help outbox` lists the outbox commands.
        if arguments.first == "help", arguments.count > 1 {
            let topic = Array(arguments.dropFirst())
            if let (command, consumed) = find(topic), consumed == topic.count {
                io.out(HelpText.render(command.spec))
                return .ok
            }
            if commands.contains(where: { $0.about.path.starts(with: topic) }) {
                io.out(overview(prefix: topic))
                return .ok
            }
            io.err("tophhie-watch: no help for '\(topic.joined(separator: " "))': no such command\(meant(topic)); see 'tophhie-watch --help'\n")
            return .usage
        }
        guard let (command, consumed) = find(arguments) else {
            if arguments.isEmpty || ["-h", "--help", "help"].contains(arguments[0]) {
                io.out(overview(prefix: []))
                return .ok
            }
            let prefix = Array(arguments.prefix { !$0.hasPrefix("-") })
            if commands.contains(where: { $0.about.path.starts(with: prefix) && !prefix.isEmpty }) {
                let wantsHelp = arguments.contains("--help") || arguments.contains("-h")
                (wantsHelp ? io.out : io.err)(overview(prefix: prefix))
                return wantsHelp ? .ok : .usage
            }
            io.err("tophhie-watch: unknown command '\(prefix.joined(separator: " "))'\(meant(prefix)); see 'tophhie-watch --help'\n")
            return .usage
        }
        let spec = command.spec
        var io = io
        do {
            let parsed = try ParsedArguments(Array(arguments.dropFirst(consumed)), spec: spec)
            if parsed.wantsHelp {
                io.out(HelpText.render(spec))
                return .ok
            }
            if parsed.declares(ConnectionOptions.configFile), let config = parsed.read(ConnectionOptions.configFile) { io = ConfigHints.carrying(config, io) }
            return try await command.run(parsed: parsed, io: io)
        } catch let error as UsageError {
            io.err("\(spec.displayName): \(error.message)\nsee '\(spec.displayName) --help'\n")
            return .usage
        } catch {
            let (message, code) = ErrorReport.describe(error)
            io.err("\(spec.displayName): \(message)\n")
            return code
        }
    }

    /// The longest command path that prefixes the arguments.
    static func find(_ arguments: [String]) -> (any CLICommand.Type, Int)? {
        var best: (any CLICommand.Type, Int)?
        for command in commands {
            let path = command.about.path
            if arguments.count >= path.count, Array(arguments.prefix(path.count)) == path, path.count > (best?.1 ?? 0) {
                best = (command, path.count)
            }
        }
        return best
    }

    /// ` (did you mean 'rules check'?)` for words a command is a letter or two from, by the
    /// distance mistyped options are measured with; empty when none is that near.
    static func meant(_ words: [String]) -> String {
        var known: [String] = []
        let paths = commands.map { $0.about.path }
        for word in words {
            let next = paths.filter { $0.count > known.count && $0.starts(with: known) }.map { $0[known.count] }
            if next.contains(word) { known.append(word); continue }
            guard let nearest = NearestName.nearest(word, among: Array(Set(next))) else { return "" }
            return " (did you mean '\((known + [nearest]).joined(separator: " "))'?)"
        }
        return ""
    }

    static func overview(prefix: [String]) -> String {
        var lines = [
            "tophhie-watch — watches your own Microsoft Entra sign-ins and alerts when something is wrong.",
            "",
            "usage: tophhie-watch <command> [options]",
            "       tophhie-watch --version | help [command]",
            "",
            "commands:",
        ]
        let shown = commands.filter { $0.about.path.starts(with: prefix) }
        let width = (shown.map { $0.about.path.joined(separator: " ").count }.max() ?? 0) + 3
        for command in shown {
            let name = command.about.path.joined(separator: " ")
            lines.append("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + command.about.summary)
        }
        lines.append("")
        lines.append("Run 'tophhie-watch help <command>' or 'tophhie-watch <command> --help' for a command's options.")
        lines.append("Exit codes: 0 ok, 1 runtime failure, 2 usage or configuration error, 3 sign-in needed, 4 access denied by Graph.")
        return lines.joined(separator: "\n") + "\n"
    }
}
