/// `completion SHELL`: prints a completion script.
enum CompletionCommand: CLICommand {
    static let spec = CommandSpec(
        path: ["completion"],
        summary: "Print the shell completion script for bash, zsh or fish",
        positionals: "SHELL",
        discussion: """
        examples:
          tophhie-watch completion bash > ~/.local/share/bash-completion/completions/tophhie-watch
          tophhie-watch completion zsh > ~/.zfunc/_tophhie-watch
          tophhie-watch completion fish > ~/.config/fish/completions/tophhie-watch.fish
        """)

    static func run(_ arguments: ParsedArguments, io: CommandIO) async throws -> ExitCode {
        guard arguments.positionals.count == 1, let script = ShellCompletion.script(for: arguments.positionals[0], TophhieCommandLine.commands) else {
            throw UsageError("name one shell: \(ShellCompletion.shells.joined(separator: ", "))")
        }
        io.out(script)
        return .ok
    }
}

/// `manpage`: prints the manual page in roff.
enum ManualPageCommand: CLICommand {
    static let spec = CommandSpec(
        path: ["manpage"],
        summary: "Print the manual page (roff), made from this help text",
        discussion: """
        example:
          tophhie-watch manpage > tophhie-watch.1 && man -l tophhie-watch.1
        """)

    static func run(_ arguments: ParsedArguments, io: CommandIO) async throws -> ExitCode {
        io.out(ManualPage.render(TophhieCommandLine.commands))
        return .ok
    }
}
