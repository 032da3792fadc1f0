import Foundation
import TophhieJSON
import TophhieRules
import TophhieSystem

/// A single-poll replay file read in two passes, so memory follows the engine's windows rather
/// than the file: the first finds each sign-in and its time (24 bytes each), the second reads
/// them back in event-time order, a batch at a time, into one engine pass with a checkpoint
/// after each batch.
///
/// Graph pages, JSON arrays and JSON lines are read this way; a poll timeline, a lone sign-in and
/// any file this reader does not recognise go the whole-file way (`ReplayInput`), which gives the
/// same alerts and names the record that is wrong.
struct StreamedReplay {
    let file: ReadableFile
    /// In the engine's order.
    let index: ReplayIndex

    /// The first pass over `path`; nil when the file is not one this reader takes.
    /// - Parameter chunkSize: bytes read at a time (tests make it small to cut records apart).
    static func open(_ path: String, chunkSize: Int = 1 << 20) -> StreamedReplay? {
        guard let file = try? ReadableFile(path: path) else { return nil }
        struct NotUsable: Error {}
        for layout in [JSONElementSplitter.Layout.document, .lines] {
            var splitter = JSONElementSplitter(layout: layout)
            var index = ReplayIndex()
            do {
                try file.forEachChunk(chunkSize: chunkSize) { chunk in
                    try splitter.feed(chunk) { offset, bytes in
                        guard index.add(bytes, at: offset) else { throw NotUsable() }
                    }
                }
                try splitter.finish { offset, bytes in
                    guard index.add(bytes, at: offset) else { throw NotUsable() }
                }
                // In the engine's order once; sign-ins sharing a time are ordered by their ids,
                // read back.
                index.sort { entry in
                    (try? file.read(at: entry.offset, count: Int(entry.length))).flatMap { bytes in
                        bytes.withUnsafeBytes { ReplayIndex.idAndTime($0)?.id }
                    }
                }
                return StreamedReplay(file: file, index: index)
            } catch JSONElementSplitter.Unsupported.notAPage where layout == .document {
                continue
            } catch {
                // Not a file this reader takes, or one it cannot read: the whole-file way says which.
                return nil
            }
        }
        return nil
    }

    /// The second pass: every sign-in through one engine pass with now = the latest event time.
    /// - Throws: `FileError`, or `SignInEventError` when a record no longer reads as it did
    ///   (the file changed, or a kept string is not UTF-8): the caller then reads the file the
    ///   whole-file way, which names the record.
    /// - Parameter batchSize: sign-ins parsed and handed to the engine at a time.
    func evaluate(_ engine: Engine, batchSize: Int = 4096) throws -> EngineOutcome {
        var pass = engine.beginPass(EngineState(), now: index.latest ?? Date(timeIntervalSince1970: 0))
        try StreamedReplay.batches(index.entries[...], batchSize: batchSize, file: file, engine: engine) { batch in
            pass.add(prepared: batch)
            // The batches come in event-time order: what is behind the last one is settled.
            if let last = batch.last?.event.eventTime { pass.checkpoint(last) }
        }
        return pass.finish()
    }

    /// Hands `entries` to `body` a batch at a time, in order, reading, parsing and matching the
    /// next batch on a second thread (`Engine.prepare`) while `body` runs.
    static func batches(_ entries: ArraySlice<ReplayIndex.Entry>, batchSize: Int, file: ReadableFile, engine: Engine,
                        _ body: ([PreparedEvent]) throws -> Void) throws {
        guard !entries.isEmpty else { return }
        let reader = SecondThread<[PreparedEvent]>()
        // A batch the engine is done with goes back to the reading thread to be freed there:
        // what a thread allocates is cheapest freed by it, and the reader allocated all of it.
        final class Spent: @unchecked Sendable { var events: [PreparedEvent] = [] }
        func start(_ from: Int, freeing spent: Spent) {
            let batch = entries[from..<min(from + batchSize, entries.endIndex)]
            reader.start {
                spent.events = []
                return engine.prepare(try ReplayBatch.read(batch, file: file, engine: engine))
            }
        }
        var next = entries.startIndex
        var spent = Spent()
        start(next, freeing: Spent())
        while next < entries.endIndex {
            var events = try reader.take()
            next += events.count
            if next < entries.endIndex { start(next, freeing: spent) }
            do { try body(events) } catch {
                // Let the batch in flight finish before the files and buffers go.
                reader.settle()
                throw error
            }
            spent = Spent()
            spent.events = events
            events = []
        }
    }
}
