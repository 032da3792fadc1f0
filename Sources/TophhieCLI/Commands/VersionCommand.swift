import Foundation
import TophhieSystem

/// `version`: the one version string (also `--version` and `-V`).
enum VersionCommand: CLICommand {
    static let about = CommandAbout(
        path: ["version"],
        summary: "Print the version",
        discussion: """
        The same line as 'tophhie-watch --version' and '-V', and the version the release archive
        and the HTTP User-Agent carry.

        example:
          tophhie-watch version
        """)

    static func run(_ options: ParsedOptions<NoOptions>, io: CommandIO) async throws -> ExitCode {
        guard options.positionals.isEmpty else { throw UsageError("'version' takes no arguments") }
        io.out(ProductVersion.line)
        return .ok
    }
}
