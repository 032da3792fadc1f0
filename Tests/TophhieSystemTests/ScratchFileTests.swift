import Foundation
import Testing
import TophhieSystem

/// A scratch file holds what a replay spills (sign-ins' places and times): private, nameless,
/// read back exactly.
@Suite(.timeLimit(.minutes(20))) struct ScratchFileTests {
    @Test func whatIsAppendedIsReadBackAtItsOffsetAndNothingIsNamed() throws {
        let folder = try DurableFileTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scratch = try ScratchFile(directory: folder)
        let first = try Array("first stretch".utf8).withUnsafeBytes { try scratch.append($0) }
        let second = try Array("second".utf8).withUnsafeBytes { try scratch.append($0) }
        #expect((first, second, scratch.size) == (0, 13, 19))
        var buffer = [UInt8](repeating: 0, count: 6)
        #expect(try buffer.withUnsafeMutableBytes { try scratch.read(into: $0, at: second) } == 6)
        #expect(String(decoding: buffer, as: UTF8.self) == "second")
        // Past the end: only what is there.
        #expect(try buffer.withUnsafeMutableBytes { try scratch.read(into: $0, at: 16) } == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [], "a scratch file has no name in its directory")
        #expect(Self.openFileModes(in: folder) == [0o600])
    }

    @Test func aDirectoryThatIsNotThereIsNamedInTheError() {
        #expect(throws: FileError(operation: "create a scratch file in", path: "/nonexistent/tophhie", code: ENOENT)) {
            _ = try ScratchFile(directory: "/nonexistent/tophhie")
        }
    }

    /// The permission bits of this process's open files that live in `folder` (nameless ones
    /// show as "folder/#inode (deleted)").
    static func openFileModes(in folder: String) -> [Int] {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { fd -> Int? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"),
                  target.hasPrefix(folder + "/") else { return nil }
            var facts = stat()
            guard stat("/proc/self/fd/\(fd)", &facts) == 0 else { return nil }
            return Int(facts.st_mode) & 0o777
        }
    }
}
