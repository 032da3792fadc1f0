import Foundation

/// Where shared test material lives: `<repo root>/../shared/`.
enum RepositoryPaths {
    /// The folder holding `Package.swift`, found by walking up from this file.
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url
            }
            url.deleteLastPathComponent()
        }
        return url
    }()

    static var shared: URL { root.deletingLastPathComponent().appendingPathComponent("shared") }
    static var yamlTestSuite: URL { shared.appendingPathComponent("yaml-test-suite") }
}
