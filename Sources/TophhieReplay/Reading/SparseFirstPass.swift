import Foundation
import TophhieJSON
import TophhieRules
import TophhieRulesFast
import TophhieSystem

/// The first pass of a large file in time order without reading the whole of it: a sign-in is
/// found every `stride` bytes (where `}, {` or a new line starts one), and its time read; the
/// stretches between them are the runs, each bounded by the times at its two ends. Only the
/// file's first sign-in and its last stretch are found by the splitter (they hold the page's
/// other members). Reading every sign-in's time first was a tenth of a replay, done before the
/// engine could start.
///
/// Nothing here is trusted until the second pass has read it: the runs must read one after
/// another, each sign-in within its run's bounds, every run ending where the next begins (a
/// sample taken inside a sign-in, at `}, {` between the objects of a list it holds, breaks that;
/// inside a string no object reads, a quote in one being escaped). The second pass throws
/// otherwise (`StreamedReplay.evaluate`), and the caller then reads the file with the full first
/// pass: before that, nothing of the sparse reading has been shown.
///
/// A file whose sampled times are not in order either way gives nil here.
enum SparseFirstPass {
    /// Files smaller than this are read with the full first pass.
    static let minimumSize = 8 << 20

    /// Bytes between the sign-ins found when the file's first ones give no measure.
    static let stride = 4 << 20

    /// Sign-ins a run should hold: a batch's worth (`StreamedReplay.evaluate`). The stride is
    /// this many times the spacing of the file's first sign-ins, so small records do not make
    /// long batches (memory goes with the batch's sign-ins, not its bytes).
    static let runLength = 4096

    /// How far past a stride point a sign-in is looked for.
    static let searchLength = 64 << 10

    /// Where and when the sampled sign-ins are, the runs between them in the engine's order,
    /// and the latest time (the replay's `now`); nil when the file is not one this pass takes.
    /// - Parameter stride: bytes between sampled sign-ins; nil takes `runLength` times the
    ///   spacing of the file's first sign-ins.
    /// - Parameters:
    ///   - runLength: sign-ins a run should hold (an export's rows cost more to hold).
    ///   - shape: the file's layout, when known (an export's); else read from its head.
    ///   - time: a record's time from its bytes, for an export's rows (`StreamedExport.rowTime`);
    ///     nil for Graph's sign-ins.
    static func runs(_ file: ReadableFile, chunkSize: Int, stride given: Int? = nil, minimumSize: Int = minimumSize, runLength: Int = runLength,
                     shape known: (layout: JSONElementSplitter.Layout, inPage: Bool)? = nil, time: RecordTime? = nil)
        -> (runs: [ReplayRun], layout: JSONElementSplitter.Layout, latest: Date)? {
        let time = time ?? RecordTime()
        guard let size = try? file.size(), size >= max(minimumSize, 2),
              let shape = known ?? HalvedFirstPass.shape(file), let first = firstRecord(file, layout: shape.layout, chunkSize: chunkSize, time: time) else { return nil }
        let stride = given ?? first.spacing.map { min(16 << 20, max(256 << 10, $0 * runLength)) } ?? SparseFirstPass.stride
        guard stride > 0 else { return nil }
        // The sampled sign-ins, from the first; the last stretch starts at the last of them.
        // Each but the first with where the separator before it is: its run ends there.
        var starts = [first.offset]
        var separators = [first.offset]
        var times = [first.time]
        // The file's first stride sampled four times as often: its runs are the engine's first
        // or last batches (`endPieces`).
        let opening = first.offset + stride
        var point = first.offset + stride / endPieces
        while point < size {
            guard let found = signIn(file, layout: shape.layout, from: point, size: size, time: time) else { break }
            starts.append(found.offset)
            separators.append(found.separator)
            times.append(found.time)
            point = found.offset + (found.offset < opening ? stride / endPieces : stride)
        }
        // A last stretch much longer than a stride (no sign-in found where one was looked for)
        // would be a batch as long: not taken.
        guard size - starts[starts.count - 1] <= 2 * stride + searchLength else { return nil }
        // A file in no order shows it in its samples: its last stretch is not read then.
        let order = order(of: times)
        guard order.forward || order.back else { return nil }
        // The last stretch's sign-ins by the splitter, from the last sampled one to the end.
        var tail: [(offset: Int, end: Int, time: Date)] = []
        var splitter = JSONElementSplitter(resumingAt: starts[starts.count - 1], layout: shape.layout, inPage: shape.inPage,
                                           maxRecordLength: StreamedReplay.maxRecordLength)
        func add(_ offset: Int, _ bytes: UnsafeRawBufferPointer) throws {
            struct NotASignIn: Error {}
            guard let read = time.of(bytes) else { throw NotASignIn() }
            tail.append((offset, offset + bytes.count, read))
        }
        do {
            try file.forEachChunk(chunkSize: chunkSize, from: starts[starts.count - 1]) { chunk in try splitter.feed(chunk, record: add) }
            try splitter.finish(record: add)
        } catch {
            return nil
        }
        guard let last = tail.last, tail[0].offset == starts[starts.count - 1], tail[0].time == times[times.count - 1] else { return nil }
        let tailEarliest = tail.map(\.time).min()!, tailLatest = tail.map(\.time).max()!
        guard let plan = plan(starts: starts, separators: separators, times: times, end: last.end, tailCount: tail.count,
                              tailEarliest: tailEarliest, tailLatest: tailLatest) else {
            return nil
        }
        // The last stretch, every sign-in of which was found, in runs of a quarter of a batch.
        var runs = plan.runs
        let pieces = SparseFirstPass.pieces(of: tail, count: runLength / endPieces)
        if pieces.count > 1 {
            if runs.last?.start == starts[starts.count - 1] {
                runs.removeLast()
                runs += pieces
            } else {
                runs.removeFirst()
                runs.insert(contentsOf: pieces.reversed(), at: 0)
            }
        }
        return (runs, shape.layout, plan.latest)
    }

    /// The runs the engine takes first and last are cut this many times finer: the engine waits
    /// for the reading thread's first batch, and the reading thread for the engine's last, and
    /// those waits are a batch long.
    static let endPieces = 4

    /// Sign-ins found one by one (offset, end, time, in file order) as counted runs of at most
    /// `count` each, in file order.
    static func pieces(of signIns: [(offset: Int, end: Int, time: Date)], count: Int) -> [ReplayRun] {
        Swift.stride(from: 0, to: signIns.count, by: max(1, count)).map { first in
            let part = signIns[first..<min(first + max(1, count), signIns.count)]
            return ReplayRun(start: part.first!.offset, end: part.last!.end, count: part.count,
                             earliest: part.map(\.time).min()!, latest: part.map(\.time).max()!)
        }
    }

    /// The runs between sampled sign-ins at `starts` (times `times`; the separator before each
    /// at `separators`, where the run before it ends), the last of them starting the last
    /// stretch, which ends at `end` and holds `tailCount` sign-ins between `tailEarliest` and
    /// `tailLatest`: in the engine's order (oldest first), each bounded by the times at its ends,
    /// its count unknown (-1) but the last stretch's. Nil when the times are not in order either
    /// way. Pure.
    static func plan(starts: [Int], separators: [Int], times: [Date], end: Int, tailCount: Int, tailEarliest: Date, tailLatest: Date)
        -> (runs: [ReplayRun], latest: Date)? {
        guard !starts.isEmpty, starts.count == times.count, starts.count == separators.count,
              zip(starts, starts.dropFirst()).allSatisfy({ $0 < $1 }), end > starts.last!,
              zip(starts, separators.dropFirst()).allSatisfy({ $0 < $1 }) else { return nil }
        let order = order(of: times)
        let tailStart = times.last!
        // The last stretch starts with the last sampled sign-in: in a file going forward in time
        // that is its earliest, going back its latest.
        let ascending = order.forward && tailEarliest == tailStart
        let descending = order.back && tailLatest == tailStart
        guard ascending || descending else { return nil }
        var runs: [ReplayRun] = []
        for index in 0..<starts.count - 1 {
            let (a, b) = (times[index], times[index + 1])
            runs.append(ReplayRun(start: starts[index], end: separators[index + 1], count: -1, earliest: min(a, b), latest: max(a, b)))
        }
        runs.append(ReplayRun(start: starts.last!, end: end, count: tailCount, earliest: tailEarliest, latest: tailLatest))
        if ascending { return (runs, tailLatest) }
        return (runs.reversed(), times[0])
    }

    /// Whether the times never go back, and whether they never go forward (both when all equal).
    static func order(of times: [Date]) -> (forward: Bool, back: Bool) {
        let pairs = zip(times, times.dropFirst())
        return (pairs.allSatisfy { $0 <= $1 }, pairs.allSatisfy { $0 >= $1 })
    }

    /// The file's first sign-in, found by the splitter (it skips a page's other members), and
    /// the mean spacing of the sign-ins within its first megabyte (nil when it holds one).
    static func firstRecord(_ file: ReadableFile, layout: JSONElementSplitter.Layout, chunkSize: Int, time read: RecordTime = RecordTime())
        -> (offset: Int, time: Date, spacing: Int?)? {
        struct Enough: Error {}
        var splitter = JSONElementSplitter(layout: layout, maxRecordLength: StreamedReplay.maxRecordLength)
        var offsets: [Int] = []
        var time: Date?
        do {
            try file.forEachChunk(chunkSize: chunkSize, upTo: 1 << 20) { chunk in
                try splitter.feed(chunk) { offset, bytes in
                    if offsets.isEmpty {
                        time = read.of(bytes)
                        if time == nil { throw Enough() }
                    }
                    offsets.append(offset)
                    if offsets.count > 256 { throw Enough() }
                }
            }
        } catch is Enough {
        } catch {
            return nil
        }
        guard let first = offsets.first, let time else { return nil }
        let spacing = offsets.count > 1 ? (offsets[offsets.count - 1] - first) / (offsets.count - 1) : nil
        return (first, time, spacing)
    }

    /// The first place at or after `from` where a sign-in seems to start (after a new line, or
    /// at the brace of `}, {`) and one reads there, with its time: a brace of an object nested
    /// in a sign-in (a policy, an authentication step) does not read as one and is passed over.
    static func signIn(_ file: ReadableFile, layout: JSONElementSplitter.Layout, from: Int, size: Int, time: RecordTime = RecordTime())
        -> (offset: Int, separator: Int, time: Date)? {
        guard from < size, let window = try? file.read(at: from, count: min(searchLength, size - from)) else { return nil }
        return window.withUnsafeBytes { raw -> (offset: Int, separator: Int, time: Date)? in
            var i = 0
            while let found = RecordBoundary.next(in: raw, layout: layout, from: i) {
                if let time = time.of(raw, at: found.start) {
                    return (from + found.start, from + found.separator, time)
                }
                i = found.start + 1
            }
            return nil
        }
    }

    /// How a record's time is read: a Graph sign-in's (`ReplayIndex.time`), or an export row's
    /// through `row`, the row read whole, strictly, from its first byte.
    struct RecordTime {
        var row: ((UnsafeRawBufferPointer) -> Date?)? = nil

        /// The time of the record that is these bytes.
        func of(_ bytes: UnsafeRawBufferPointer) -> Date? {
            row.map { $0(bytes) } ?? ReplayIndex.time(bytes)
        }

        /// The time of the record that starts at `start` in bytes that go on past it.
        func of(_ bytes: UnsafeRawBufferPointer, at start: Int) -> Date? {
            guard let row else { return ReplayIndex.time(in: bytes, at: start) }
            guard let end = try? JSONValue.parseSlots(bytes, from: start, layout: RecordTime.nothing).end else { return nil }
            return row(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
        }

        /// A layout of no slots: an object is walked to its end, strictly.
        private static let nothing = JSONSlotLayout(paths: [])
    }
}
