import Foundation
import Testing
import TophhieSystem

/// A stretch of a file read at an offset: exactly its bytes, fewer at the end, an error named.
@Suite(.timeLimit(.minutes(20))) struct ReadableFileTests {
    @Test func aStretchIsItsBytesAndTheEndGivesWhatIsThere() throws {
        let folder = try DurableFileTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/records.json"
        let text = Array((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        FileManager.default.createFile(atPath: path, contents: Data(text))
        let file = try ReadableFile(path: path)
        #expect(try file.read(at: 0, count: 5) == Array(text[0..<5]))
        #expect(try file.read(at: 123_456, count: 100_000) == Array(text[123_456..<223_456]))
        #expect(try file.read(at: 299_990, count: 50) == Array(text[299_990...]), "past the end: only what is there")
        #expect(try file.read(at: 300_000, count: 10) == [])
        #expect(try file.read(at: 7, count: 0) == [])
    }

    @Test func aFailedReadIsNamed() throws {
        let folder = try DurableFileTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A directory opens for reading, and reading it fails.
        let file = try ReadableFile(path: folder)
        #expect(throws: FileError(operation: "read", path: folder, code: EISDIR)) { _ = try file.read(at: 0, count: 16) }
    }
}
