import Foundation
import TophhieJSON
import TophhieRules
import TophhieRulesFast
import TophhieSystem

/// The first pass over a large file in time order, its two halves read on two threads: split
/// at a sign-in near the middle, the second half on the second thread while this one reads the
/// first. The first pass is the part of a replay nothing else runs beside (a tenth of it).
///
/// Only the plain case is taken: a Graph page, a JSON array or JSON lines, in time order either
/// way, with a boundary between two sign-ins found near the middle that the first half's
/// splitter indeed reaches between two records. Anything else (a brace, comma and brace inside a
/// string, a record that does not read, a half out of time order) gives nil, and the caller
/// reads the file in one pass as before, with its checks and messages.
///
/// It waits for the second half (`SecondThread`): call it from a blocking-work thread, as replay
/// does, never from Swift's cooperative pool.
enum HalvedFirstPass {
    /// Files smaller than this are read in one pass: a second thread is not worth it.
    static let minimumSize = 8 << 20

    /// How far past the middle a boundary between two sign-ins is looked for.
    static let searchLength = 1 << 20

    /// The runs of the sign-ins of `file`, and how they sit in it; nil when the file is not a
    /// large one in time order read plainly (the caller then reads it in one pass).
    static func runs(_ file: ReadableFile, chunkSize: Int, runLength: Int, minimumSize: Int = minimumSize)
        -> (runs: ReplayRuns, layout: JSONElementSplitter.Layout)? {
        guard let size = try? file.size(), size >= max(minimumSize, 2),
              let shape = shape(file), let split = boundary(file, layout: shape.layout, from: size / 2, size: size) else { return nil }
        let second = SecondThread<ReplayRuns?>()
        second.start {
            var splitter = JSONElementSplitter(resumingAt: split, layout: shape.layout, inPage: shape.inPage,
                                               maxRecordLength: StreamedReplay.maxRecordLength)
            return try? half(file, &splitter, from: split, upTo: nil, chunkSize: chunkSize, runLength: runLength)
        }
        var splitter = JSONElementSplitter(layout: shape.layout, maxRecordLength: StreamedReplay.maxRecordLength)
        let first = try? half(file, &splitter, from: 0, upTo: split, chunkSize: chunkSize, runLength: runLength)
        // Taken even when the first half failed: the second must finish before the file goes.
        let later = (try? second.take()) ?? nil
        let reached = splitter.isBetweenRecords
        guard var runs = first, let later, runs.count > 0, later.count > 0,
              reached.between, shape.layout == .lines || reached.inPage == shape.inPage else { return nil }
        runs.append(later)
        return runs.inOrder ? (runs, shape.layout) : nil
    }

    /// One half: its sign-ins as runs, from `start` to `end` (to the file's end, finishing the
    /// splitter, when nil).
    /// - Throws: when a record does not read as a sign-in with a time, the half is out of time
    ///   order, or the splitter stops.
    static func half(_ file: ReadableFile, _ splitter: inout JSONElementSplitter, from start: Int, upTo end: Int?,
                     chunkSize: Int, runLength: Int) throws -> ReplayRuns {
        struct NotPlain: Error {}
        var runs = ReplayRuns(length: runLength)
        func add(_ offset: Int, _ bytes: UnsafeRawBufferPointer) throws {
            guard let time = ReplayIndex.time(bytes), runs.add(time: time, offset: offset, length: bytes.count) else { throw NotPlain() }
        }
        try file.forEachChunk(chunkSize: chunkSize, from: start, upTo: end) { chunk in
            try splitter.feed(chunk) { offset, bytes in try add(offset, bytes) }
        }
        if end == nil { try splitter.finish { offset, bytes in try add(offset, bytes) } }
        return runs
    }

    /// How the file holds its sign-ins, from its first bytes: JSON lines when its first line is
    /// a sign-in on its own, else a document (a page when it opens with a brace).
    static func shape(_ file: ReadableFile) -> (layout: JSONElementSplitter.Layout, inPage: Bool)? {
        guard let head = try? file.read(at: 0, count: 1 << 16) else { return nil }
        var start = 0
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < head.count, JSONElementSplitter.isSpace(head[start]) { start += 1 }
        guard start < head.count else { return nil }
        if head[start] == UInt8(ascii: "[") { return (.document, false) }
        guard head[start] == UInt8(ascii: "{") else { return nil }
        if let newline = head[start...].firstIndex(of: 0x0A),
           head[start..<newline].withUnsafeBytes({ ReplayIndex.time($0) }) != nil {
            return (.lines, false)
        }
        return (.document, true)
    }

    /// Where a sign-in seems to start at or after `from` (`RecordBoundary`): such bytes inside
    /// a string or a nested list are caught by the first half's splitter not being between
    /// records there.
    static func boundary(_ file: ReadableFile, layout: JSONElementSplitter.Layout, from: Int, size: Int) -> Int? {
        guard let window = try? file.read(at: from, count: min(searchLength, size - from)) else { return nil }
        return window.withUnsafeBytes { RecordBoundary.next(in: $0, layout: layout, from: 0) }.map { from + $0.start }
    }
}
