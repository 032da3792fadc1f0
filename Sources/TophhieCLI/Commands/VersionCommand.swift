import Foundation
import TophhieSystem

/// `version`: the one version string (also `--version` and `-V`).
enum VersionCommand: CLICommand {
    static let spec = CommandSpec(
        path: ["version"],
        summary: "Print the version",
        discussion: """
        The same line as 'tophhie-watch --version' and '-V', and the version the release archive
        and the HTTP User-Agent carry.

        example:
          tophhie-watch version
        """)

    static func run(_ arguments: ParsedArguments, io: CommandIO) async throws -> ExitCode {
        guard arguments.positionals.isEmpty else { throw UsageError("'version' takes no arguments") }
        io.out(ProductVersion.line)
        return .ok
    }
}
