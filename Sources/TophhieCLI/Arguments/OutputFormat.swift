/// `--format text|json`, for the commands that print one line per finding (`replay`, `rules match`).
enum OutputFormat: String, Sendable, CaseIterable {
    case text, json

    /// The option, with the help line each command words for itself.
    static func option(help: String) -> Option<OutputFormat> {
        .choice("format", among: allCases, default: .text, takes: "'text' or 'json'", help: help)
    }
}
