import Foundation
import TophhieJSON
import TophhieSystem

/// Reads the sign-ins of a Graph file (a page, an array, JSON lines; what `ExportConversion`
/// writes for an export) a piece at a time, keeping only what the report shows of each.
public enum ReportInput {
    /// What a file held.
    public struct Read: Sendable {
        public var signIns: [ReportSignIn]
        /// Records the live poll's decoder would skip (no id, no time, no whole error code).
        public var skipped: Int

        public init(signIns: [ReportSignIn], skipped: Int) {
            self.signIns = signIns
            self.skipped = skipped
        }
    }

    /// The file's sign-ins.
    /// - Throws: `ReportInputError` when the file cannot be read or is none of those shapes.
    /// - Complexity: one pass; memory is the kept fields of each sign-in, not the file.
    /// - Parameter progress: the sign-ins read so far, after each chunk of the file.
    public static func read(_ path: String, progress: ((Int) -> Void)? = nil) throws -> Read {
        let file: ReadableFile
        do { file = try ReadableFile(path: path) } catch { throw ReportInputError("\(error)") }
        let layout = JSONSlotLayout(paths: ReportSignIn.paths)
        // A byte order mark is skipped as replay's readers skip it: else the first record of JSON
        // lines does not parse and its sign-in is lost.
        let start = ((try? file.read(at: 0, count: 3)) ?? []).starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        for shape in [JSONElementSplitter.Layout.document, .lines] {
            var splitter = JSONElementSplitter(layout: shape)
            var read = Read(signIns: [], skipped: 0)
            let take: (Int, UnsafeRawBufferPointer) throws -> Void = { _, bytes in
                if let slots = try? JSONValue.parseSlots(bytes, layout: layout), let signIn = ReportSignIn(slots: slots) {
                    read.signIns.append(signIn)
                } else {
                    read.skipped += 1
                }
            }
            do {
                try file.forEachChunk(from: start) { chunk in
                    try splitter.feed(chunk, record: take)
                    progress?(read.signIns.count)
                }
                try splitter.finish(record: take)
                return read
            } catch is JSONElementSplitter.Unsupported {
                continue
            } catch {
                throw ReportInputError("cannot read \(path): \(error)")
            }
        }
        throw ReportInputError("\(path): not a file of Graph sign-ins (a page, an array or JSON lines)")
    }
}

/// A report input that could not be read, in words.
public struct ReportInputError: Error, Hashable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
