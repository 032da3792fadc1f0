import Foundation

/// The repository's folders as tests find them, and files written for one test and removed
/// after it. For tests.
public enum RepositoryFiles {
    /// The folder holding Package.swift.
    public static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return url
    }()

    /// The default rule pack.
    public static var rules: String { root.appendingPathComponent("rules").path }

    /// SigmaHQ's Azure sign-in rules, beside the repository.
    public static var sigma: String { root.appendingPathComponent("../shared/sigma").standardized.path }

    /// Writes `text` to a file named `name` in a folder of its own under the temporary directory.
    public static func temporary(_ name: String, _ text: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    /// Removes the folder `temporary` made for `path` (the suite must leave nothing behind:
    /// `.ci/run` checks).
    public static func remove(_ path: String) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        guard folder.lastPathComponent.hasPrefix("tophhie-test-") else { return }
        try? FileManager.default.removeItem(at: folder)
    }
}
