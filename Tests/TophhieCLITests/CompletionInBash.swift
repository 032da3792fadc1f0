import Foundation
@testable import TophhieCLI

/// Runs a generated bash completion function as bash would on Tab, and reads what it offers.
enum CompletionInBash {
    /// The words `_tophhie_watch` puts in COMPREPLY for `words`, the last being the word under
    /// the cursor (empty for a Tab after a space); run in `folder` so file names are known.
    static func offers(_ script: String, _ words: [String], in folder: String = FileManager.default.temporaryDirectory.path) throws -> [String] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-completion-\(UUID().uuidString).bash")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.arguments = ["--norc", "--noprofile", "-c", """
            source '\(file.path)'
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            _tophhie_watch
            printf '%s\\n' "${COMPREPLY[@]}"
            """]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
