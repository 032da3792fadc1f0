import Foundation
import TophhieJSON
import TophhieRules
import TophhieSystem

/// A single-poll replay file read in two passes, so memory follows the engine's state rather
/// than the file: the first finds each sign-in and its (time, id), the second reads them back in
/// event-time order, a batch at a time, into one engine pass.
///
/// Graph pages, JSON arrays and JSON lines are read this way; a poll timeline, a lone sign-in and
/// any file this reader does not recognise go the whole-file way (`ReplayInput`), which gives the
/// same alerts and names the record that is wrong.
struct StreamedReplay {
    let file: ReadableFile
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
        let projection = engine.eventProjection
        var pass = engine.beginPass(EngineState(), now: index.latest ?? Date(timeIntervalSince1970: 0))
        let ordered = index.ordered()
        var start = 0
        while start < ordered.count {
            let batch = ordered[start..<min(start + batchSize, ordered.count)]
            var events: [any RuleEvent] = []
            events.reserveCapacity(batch.count)
            for entry in batch {
                let bytes = try file.read(at: entry.offset, count: entry.length)
                // Into slots when the rules name their fields; whole when a keyword search reads every string.
                if let layout = engine.eventLayout {
                    events.append(try ReplayIndex.event(bytes, entry: entry, layout: layout))
                } else {
                    events.append(try ReplayIndex.event(bytes, entry: entry, keeping: projection))
                }
            }
            pass.add(events)
            start += batch.count
        }
        return pass.finish()
    }

    /// Every sign-in in file order, a batch at a time, read into the engine's slots (or whole
    /// when a keyword search reads every string): for `rules match`, which needs no order.
    /// - Throws: as `evaluate`, or what `body` throws.
    func forEachBatch(_ engine: Engine, batchSize: Int = 4096, _ body: ([any RuleEvent]) throws -> Void) throws {
        let projection = engine.eventProjection
        var start = 0
        let entries = index.entries
        while start < entries.count {
            let batch = entries[start..<min(start + batchSize, entries.count)]
            var events: [any RuleEvent] = []
            events.reserveCapacity(batch.count)
            for entry in batch {
                let bytes = try file.read(at: entry.offset, count: entry.length)
                if let layout = engine.eventLayout {
                    events.append(try ReplayIndex.event(bytes, entry: entry, layout: layout))
                } else {
                    events.append(try ReplayIndex.event(bytes, entry: entry, keeping: projection))
                }
            }
            try body(events)
            start += batch.count
        }
    }
}
