import Foundation
import Testing
import TophhieSystem

@Suite(.timeLimit(.minutes(20))) struct DurableFileTests {
    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-system-\(UUID().uuidString)").path
        try DurableFile.makeDirectory(path)
        return path
    }

    @Test func replaceLeavesThePrivateFileAndNoTemporary() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state.json"
        try DurableFile.replace(path, with: Array("one".utf8))
        try DurableFile.replace(path, with: Array("two".utf8), mode: 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two")
        #expect(DurableFile.permissions(of: path) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["state.json"])
        #expect(DurableFile.temporaryPath(for: path) == folder + "/.state.json.tmp-\(ProcessFacts.processID)")
    }

    @Test func aFailedReplaceNamesTheStepAndLeavesNoTemporary() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let target = folder + "/occupied"
        try FileManager.default.createDirectory(atPath: target + "/inside", withIntermediateDirectories: true)
        #expect(throws: FileError(operation: "rename over", path: target, code: 21)) {
            try DurableFile.replace(target, with: Array("x".utf8))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["occupied"])
    }

    @Test func appendAddsWholeLines() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/queue.jsonl"
        try DurableFile.append(Array("a\n".utf8), to: path)
        try DurableFile.append(Array("b\n".utf8), to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "a\nb\n")
        #expect(DurableFile.permissions(of: path) == 0o600)
    }
}
