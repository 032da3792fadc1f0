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
    }

    /// The file's sign-ins.
    /// - Throws: `ReportInputError` when the file cannot be read or is none of those shapes.
    /// - Complexity: one pass; memory is the kept fields of each sign-in, not the file.
    public static func read(_ path: String) throws -> Read {
        let file: ReadableFile
        do { file = try ReadableFile(path: path) } catch { throw ReportInputError("\(error)") }
        let layout = JSONSlotLayout(paths: ReportSignIn.paths)
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
                try file.forEachChunk { chunk in try splitter.feed(chunk, record: take) }
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
