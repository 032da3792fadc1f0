/// Renders `--help` for a command from its spec.
enum HelpText {
    static func render(_ spec: CommandSpec) -> String {
        var lines = ["\(spec.summary)", ""]
        var usage = "usage: \(spec.displayName)"
        if !spec.options.isEmpty { usage += " [options]" }
        if !spec.positionals.isEmpty { usage += " \(spec.positionals)" }
        lines.append(usage)
        if !spec.options.isEmpty {
            lines.append("")
            lines.append("options:")
            let labels = spec.options.map { option -> String in
                "--\(option.name)" + (option.valueName.map { " \($0)" } ?? "")
            }
            let width = min(28, max(labels.map(\.count).max() ?? 0, "-h, --help".count) + 2)
            for (option, label) in zip(spec.options, labels) {
                let padded = label.count < width ? label + String(repeating: " ", count: width - label.count) : label + "  "
                lines.append("  " + padded + option.help)
            }
            lines.append("  " + "-h, --help".padding(toLength: width, withPad: " ", startingAt: 0) + "show this help")
        }
        if !spec.discussion.isEmpty {
            lines.append("")
            lines.append(spec.discussion)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
