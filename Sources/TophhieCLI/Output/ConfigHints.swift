import Foundation

/// The commands the program suggests (`'tophhie-watch login --scopes profile-edit'`) carry the
/// `--config` the user gave: run as printed, they read the same file, not the default one.
enum ConfigHints {
    /// `io` whose messages (not its alerts) have `--config FILE` added to each suggested command.
    static func carrying(_ file: String, _ io: CommandIO) -> CommandIO {
        var io = io
        let out = io.out, err = io.err
        io.out = { out(add(file, to: $0)) }
        io.err = { err(add(file, to: $0)) }
        return io
    }

    /// Adds `--config FILE` inside every quoted `'tophhie-watch …'` that has none.
    static func add(_ file: String, to text: String) -> String {
        guard text.contains("'tophhie-watch ") else { return text }
        let argument = file.contains(" ") || file.contains("'") ? "\"\(file)\"" : file
        var result = ""
        var rest = Substring(text)
        while let start = rest.range(of: "'tophhie-watch ") {
            result += rest[..<start.upperBound]
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: "'") else { break }
            let command = rest[..<end]
            result += command
            if !command.contains("--config") && !command.hasPrefix("--") { result += " --config \(argument)" }
            rest = rest[end...]
        }
        return result + rest
    }
}
