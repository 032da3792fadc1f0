import Foundation

/// The repository's rules, and replay files written for one test and removed after it.
enum ReplayTestFiles {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return url
    }()
    static var rules: String { root.appendingPathComponent("rules").path }

    /// Writes `text` to a file named `name` in a folder of its own.
    static func temporary(_ name: String, _ text: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    /// Removes the folder `temporary` made for `path` (the suite must leave nothing behind:
    /// `.ci/run` checks).
    static func remove(_ path: String) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        guard folder.lastPathComponent.hasPrefix("tophhie-replay-") else { return }
        try? FileManager.default.removeItem(at: folder)
    }
}

/// A small deterministic generator (SplitMix64), so a failing seed can be run again.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
