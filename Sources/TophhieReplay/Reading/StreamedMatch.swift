import Foundation
import TophhieJSON
import TophhieRules
import TophhieRulesFast
import TophhieSystem

/// `rules match` over a Graph page, an array or JSON lines in one pass: matching needs no event
/// order, so the sign-ins are matched as they are found, a batch at a time, every other batch
/// on a second thread. Memory is a few batches of bytes.
///
/// A file this reader does not take, or a record that cannot be read, gives nil: the caller then
/// reads the file the whole-file way, which names the record. Nothing is decided before the end,
/// so a record found broken late leaves nothing half-printed.
enum StreamedMatch {
    /// A run of records as the file holds them: their bytes side by side, and where each ends.
    struct Batch: Sendable {
        var bytes: [UInt8] = []
        var ends: [Int] = []
    }

    /// Every detection match of `file`'s sign-ins in file order, each (rule, id) once; and how
    /// many sign-ins there were.
    /// - Parameters:
    ///   - chunkSize: bytes read at a time (tests make it small to cut records apart).
    ///   - batchSize: sign-ins matched at a time.
    static func run(_ path: String, engine: Engine, matcher: DetectionMatches, chunkSize: Int = ReadableFile.chunkSize, batchSize: Int = 2048) -> (count: Int, matches: [DetectionMatch])? {
        guard let file = try? ReadableFile(path: path) else { return nil }
        for layout in [JSONElementSplitter.Layout.document, .lines] {
            var splitter = JSONElementSplitter(layout: layout, maxRecordLength: StreamedReplay.maxRecordLength)
            let second = SecondThread<[DetectionMatch]>()
            var found: [[DetectionMatch]] = []
            var batch = Batch()
            var count = 0
            var turn = 0
            // Even batches go to the second thread, odd ones are matched here; results are kept
            // in file order.
            func hand(_ full: Batch) throws {
                if turn % 2 == 0 {
                    if second.busy { found.append(try second.take()) }
                    second.start { try StreamedMatch.match(full, engine: engine, matcher: matcher) }
                } else {
                    let mine = try StreamedMatch.match(full, engine: engine, matcher: matcher)
                    found.append(try second.take())
                    found.append(mine)
                }
                turn += 1
            }
            func add(_ bytes: UnsafeRawBufferPointer) throws {
                batch.bytes.append(contentsOf: bytes)
                batch.ends.append(batch.bytes.count)
                count += 1
                if batch.ends.count == batchSize {
                    try hand(batch)
                    batch = Batch()
                }
            }
            do {
                try file.forEachChunk(chunkSize: chunkSize) { chunk in
                    try splitter.feed(chunk) { _, bytes in try add(bytes) }
                }
                try splitter.finish { _, bytes in try add(bytes) }
                if !batch.ends.isEmpty { try hand(batch) }
                if second.busy { found.append(try second.take()) }
            } catch JSONElementSplitter.Unsupported.notAPage where layout == .document {
                second.settle()
                continue
            } catch {
                // Not a file this reader takes, or a record it cannot read: the whole-file way says which.
                second.settle()
                return nil
            }
            // Each (rule, id) once, in file order, as the whole-file way tells them.
            var told = Set<String>()
            var matches: [DetectionMatch] = []
            for match in found.joined() where told.insert(match.ruleID + "\u{1F}" + match.eventID).inserted {
                matches.append(match)
            }
            return (count, matches)
        }
        return nil
    }

    /// One batch's matches, every one of them (the caller drops repeats).
    /// - Throws: `SignInEventError` for a record that is not a readable sign-in.
    static func match(_ batch: Batch, engine: Engine, matcher: DetectionMatches) throws -> [DetectionMatch] {
        var events: [any RuleEvent] = []
        events.reserveCapacity(batch.ends.count)
        try batch.bytes.withUnsafeBytes { raw in
            var start = 0
            for end in batch.ends {
                guard let event = ReplayBatch.event(UnsafeRawBufferPointer(rebasing: raw[start..<end]), engine: engine) else {
                    throw SignInEventError("not a readable sign-in (at record \(events.count + 1) of its batch)")
                }
                events.append(event)
                start = end
            }
        }
        var none = Set<String>()
        return matcher.matches(events, told: &none)
    }
}
