/// `completion SHELL`: prints a completion script.
enum CompletionCommand: CLICommand {
    static let about = CommandAbout(
        path: ["completion"],
        summary: "Print the shell completion script for bash, zsh or fish",
        positionals: "SHELL",
        positionalKind: .enumeration(ShellCompletion.shells, takes: ShellCompletion.shells.joined(separator: ", ")),
        discussion: """
        examples:
          tophhie-watch completion bash > ~/.local/share/bash-completion/completions/tophhie-watch
          tophhie-watch completion zsh > ~/.zfunc/_tophhie-watch
          tophhie-watch completion fish > ~/.config/fish/completions/tophhie-watch.fish
        """)

    static func run(_ options: ParsedOptions<NoOptions>, io: CommandIO) async throws -> ExitCode {
        guard options.positionals.count == 1, let script = ShellCompletion.script(for: options.positionals[0], TophhieCommandLine.commands) else {
            throw UsageError("name one shell: \(ShellCompletion.shells.joined(separator: ", "))")
        }
        io.out(script)
        return .ok
    }
}

/// `manpage`: prints the manual page in roff.
enum ManualPageCommand: CLICommand {
    static let about = CommandAbout(
        path: ["manpage"],
        summary: "Print the manual page (roff), made from this help text",
        discussion: """
        example:
          tophhie-watch manpage > tophhie-watch.1 && man -l tophhie-watch.1
        """)

    static func run(_ options: ParsedOptions<NoOptions>, io: CommandIO) async throws -> ExitCode {
        io.out(ManualPage.render(TophhieCommandLine.commands))
        return .ok
    }
}
