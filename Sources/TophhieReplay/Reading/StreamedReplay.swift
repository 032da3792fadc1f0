import Foundation
import TophhieJSON
import TophhieRules
import TophhieRulesFast
import TophhieSystem

/// A single-poll replay file read in two passes, so memory follows the engine's windows rather
/// than the file: the first finds each sign-in and its time, the second reads them back in
/// event-time order, a batch at a time, into one engine pass with a checkpoint after each batch.
///
/// A file already in time order either way (Graph lists newest first; an export may list oldest
/// first) is kept as runs of sign-ins side by side in it, a few dozen bytes a run, read back run
/// by run from the end it starts at; any other order keeps every sign-in's place and time (24
/// bytes each) and sorts them, in memory up to `spillLimit` of them and beyond that in sorted
/// stretches written to a scratch file and merged back (`SpilledIndex`).
///
/// Graph pages, JSON arrays and JSON lines are read this way; a poll timeline, a lone sign-in and
/// any file this reader does not recognise go the whole-file way (`ReplayInput`), which gives the
/// same alerts and names the record that is wrong.
struct StreamedReplay {
    let file: ReadableFile
    let layout: JSONElementSplitter.Layout
    /// The latest event time: a single-poll replay's `now`.
    let latest: Date?
    let order: Order
    /// How an export's records read (`ExportIndex`); nil for Graph's own records.
    var reading: ExportReading? = nil
    /// Each record is given the quick check as it is read (`PlainRecordCheck`, an export's
    /// `ExportReading.event(checkingAt:)`): the file was not checked before.
    var checking = false
    /// An export's record with the latest time (`ExportIndex.latestEntry`), checked first.
    var latestEntry: ReplayIndex.Entry? = nil

    /// Where the sign-ins are, in the engine's order.
    enum Order {
        /// Each one, sorted (a file in no time order).
        case entries([ReplayIndex.Entry])
        /// Runs of them side by side in the file, each read whole and sorted.
        case runs([ReplayRun])
        /// Each one, in sorted stretches on disk merged as they are read (a file in no time
        /// order with more than `spillLimit` sign-ins).
        case spilled(SpilledIndex)
    }

    /// The first pass over `path`; nil when the file is not one this reader takes.
    /// - Parameters:
    ///   - chunkSize: bytes read at a time (tests make it small to cut records apart).
    ///   - runLength: sign-ins in a run of a file in time order.
    ///   - indexLimit: entries kept before a file still in time order is held as runs only.
    ///   - spillLimit: entries of a file in no time order sorted in memory; each time the index
    ///     reaches it, they are written to a scratch file in `scratchDirectory` (default
    ///     `$TMPDIR`, else /tmp) as one sorted stretch.
    ///   - halvingFrom: files this large in time order have their first pass split in two
    ///     halves read side by side (`HalvedFirstPass`).
    static func open(_ path: String, chunkSize: Int = ReadableFile.chunkSize, runLength: Int = 4096, indexLimit: Int = 1 << 20,
                     spillLimit: Int = 1 << 19, scratchDirectory: String? = nil,
                     halvingFrom: Int = HalvedFirstPass.minimumSize) -> StreamedReplay? {
        guard let file = try? ReadableFile(path: path) else { return nil }
        if let halved = HalvedFirstPass.runs(file, chunkSize: chunkSize, runLength: runLength, minimumSize: halvingFrom) {
            return StreamedReplay(file: file, layout: halved.layout, latest: halved.runs.latest,
                                  order: .runs(halved.runs.inEngineOrder()))
        }
        let readID = StreamedReplay.idReader(file)
        struct NotUsable: Error {}
        struct OutOfOrder: Error {}
        for layout in [JSONElementSplitter.Layout.document, .lines] {
            // Runs are tried first; a file found out of order past `indexLimit`, when its entries
            // were already given up, is read again keeping every entry.
            for keepingEntries in [false, true] {
                var splitter = JSONElementSplitter(layout: layout, maxRecordLength: StreamedReplay.maxRecordLength)
                var index = ReplayIndex()
                var runs = ReplayRuns(length: runLength)
                let spilled = SpilledIndex(directory: scratchDirectory)
                var spilledLatest: Date?
                func spill() {
                    spilledLatest = max(spilledLatest ?? index.latest!, index.latest!)
                    index.sort(id: readID)
                    spilled.spill(index.entries)
                    index = ReplayIndex()
                }
                func add(_ offset: Int, _ bytes: UnsafeRawBufferPointer) throws {
                    if runs.holdsAll {
                        guard let time = ReplayIndex.time(bytes) else { throw NotUsable() }
                        guard runs.add(time: time, offset: offset, length: bytes.count) else { throw OutOfOrder() }
                        return
                    }
                    guard index.add(bytes, at: offset) else { throw NotUsable() }
                    let entry = index.entries[index.entries.count - 1]
                    _ = runs.add(time: entry.time, offset: entry.offset, length: Int(entry.length))
                    if !keepingEntries, index.entries.count >= indexLimit, runs.inOrder {
                        // Still in time order: the runs alone will do.
                        runs.holdsAll = true
                        index = ReplayIndex()
                    } else if index.entries.count >= spillLimit, keepingEntries || !runs.inOrder {
                        spill()
                    }
                }
                do {
                    try file.forEachChunk(chunkSize: chunkSize) { chunk in
                        try splitter.feed(chunk) { offset, bytes in try add(offset, bytes) }
                    }
                    try splitter.finish { offset, bytes in try add(offset, bytes) }
                } catch JSONElementSplitter.Unsupported.notAPage where layout == .document {
                    break
                } catch is OutOfOrder {
                    continue
                } catch {
                    // Not a file this reader takes, or one it cannot read: the whole-file way says which.
                    return nil
                }
                if runs.inOrder {
                    return StreamedReplay(file: file, layout: layout, latest: runs.latest, order: .runs(runs.inEngineOrder()))
                }
                // In the engine's order once; sign-ins sharing a time are ordered by their ids,
                // read back.
                guard spilled.count > 0 else {
                    index.sort(id: readID)
                    return StreamedReplay(file: file, layout: layout, latest: index.latest, order: .entries(index.entries))
                }
                if !index.entries.isEmpty { spill() }
                return StreamedReplay(file: file, layout: layout, latest: spilledLatest, order: .spilled(spilled))
            }
        }
        return nil
    }

    /// The first pass from samples (`SparseFirstPass`) over a large file in time order; nil when
    /// the file is not one it takes. Its runs are checked only as the second pass reads them:
    /// `evaluateCounting` throws when they are wrong, and the caller then uses `open`.
    static func openSparse(_ path: String, chunkSize: Int = ReadableFile.chunkSize, stride: Int? = nil,
                           minimumSize: Int = SparseFirstPass.minimumSize) -> StreamedReplay? {
        guard let file = try? ReadableFile(path: path),
              let sparse = SparseFirstPass.runs(file, chunkSize: chunkSize, stride: stride, minimumSize: minimumSize) else { return nil }
        return StreamedReplay(file: file, layout: sparse.layout, latest: sparse.latest, order: .runs(sparse.runs))
    }

    /// The longest sign-in this reader collects: Graph's are a few kilobytes, and a longer
    /// record (a whole poll timeline written on one line, read as JSON lines) goes the
    /// whole-file way after this much rather than after the whole file.
    static let maxRecordLength = 16 << 20

    /// Reads back the id of the sign-in at an entry; nil when it cannot.
    static func idReader(_ file: ReadableFile) -> @Sendable (ReplayIndex.Entry) -> String? {
        { entry in
            (try? file.read(at: entry.offset, count: Int(entry.length))).flatMap { bytes in
                bytes.withUnsafeBytes { ReplayIndex.idAndTime($0)?.id }
            }
        }
    }

    /// The second pass: every sign-in through one engine pass with now = the latest event time.
    /// - Throws: `FileError`, or `SignInEventError` when a record no longer reads as it did
    ///   (the file changed, or a kept string is not UTF-8): the caller then reads the file the
    ///   whole-file way, which names the record.
    /// - Parameter batchSize: sign-ins parsed and handed to the engine at a time (a file in no
    ///   time order; runs are handed over whole).
    func evaluate(_ engine: Engine, batchSize: Int = 4096) throws -> EngineOutcome {
        try evaluateCounting(engine, batchSize: batchSize).outcome
    }

    /// `evaluate`, with the number of sign-ins read, and of those whose place is unknown to the
    /// rules (nil when the rules read no place: `UnknownPlaces.counted`).
    /// - Parameter emit: given, takes the alerts as they become final (`EnginePass.takeAlerts`),
    ///   in their final order, and the outcome holds none: memory does not grow with the alerts.
    /// - Parameter keepingState: false leaves the outcome's state empty (`EnginePass.finish`).
    /// - Throws: with `checking`, `PlainRecordCheck.Failed` for a record the quick check does not
    ///   pass, before any alert when it holds the latest time (the replay's `now`, which a
    ///   replay of the file checked first would take from another record).
    func evaluateCounting(_ engine: Engine, batchSize: Int = 4096, keepingState: Bool = true, emit: (([Alert]) -> Void)? = nil) throws -> (outcome: EngineOutcome, count: Int, unknownPlaces: Int?) {
        var pass = engine.beginPass(EngineState(), now: latest ?? Date(timeIntervalSince1970: 0))
        var taken: [Alert] = []
        var read = 0
        let countingPlaces = UnknownPlaces.counted(readingPaths: engine.eventPaths)
        let placeSlots = UnknownPlaces.Slots()
        var unknownPlaces = 0
        let file = self.file, layout = self.layout, checking = self.checking
        // An export's records are read for what the rules read.
        let reading = self.reading.map { $0.reading(for: engine, checking: checking) }
        let jobs: [ReadAhead.Job<[PreparedEvent]>]
        /// The earliest time of the batch after batch `n`.
        let following: (Int) -> Date?
        switch order {
        case .entries(let entries):
            let starts = Array(stride(from: 0, to: entries.count, by: batchSize))
            jobs = starts.map { start in
                let batch = entries[start..<min(start + batchSize, entries.count)]
                return { { engine.prepareLater(try ReplayBatch.read(batch, file: file, engine: engine, reading: reading, checking: checking)) } }
            }
            following = { n in n + 1 < starts.count ? entries[starts[n + 1]].time : nil }
        case .runs(let runs):
            // Matched on the reading thread while the engine is busy, else by the engine.
            jobs = runs.map { run in
                {
                    {
                        guard let reading else { return engine.prepareLater(try ReplayBatch.read(run, layout: layout, file: file, engine: engine, checking: checking)) }
                        // An export's runs are only ever a sampled file's, checked as they are read.
                        precondition(checking, "a sampled export is checked as it is read")
                        return engine.prepareLater(try ReplayBatch.read(run, layout: layout, file: file, engine: engine, reading: reading))
                    }
                }
            }
            following = { n in n + 1 < runs.count ? runs[n + 1].earliest : nil }
        case .spilled(let index):
            // Each batch is taken from the merge as it is handed to a reader, in order, with
            // the time after it noted.
            var id = StreamedReplay.idReader(file)
            if let reading { id = ExportIndex.idReader(file, reading: reading) }
            var merge = try index.merge(id: id)
            let batches = (index.count + batchSize - 1) / batchSize
            var notes = [Date?](repeating: nil, count: batches)
            jobs = (0..<batches).map { number in
                {
                    let batch = try merge.next(batchSize)
                    notes[number] = merge.nextTime
                    return { engine.prepareLater(try ReplayBatch.read(batch[...], file: file, engine: engine, reading: reading, checking: checking)) }
                }
            }
            following = { n in notes[n] }
        }
        if checking {
            // The latest time is the replay's `now`: a record of it is checked before the engine
            // makes an alert, so the alerts made before a record that fails are the first of
            // those the file checked first gives. Graph's, in the last batch; an export's, the
            // one its index noted (a spilled index's batches are taken in order only).
            if let reading, let entry = latestEntry {
                _ = try ReplayBatch.read([entry][...], file: file, engine: engine, reading: reading, checking: true)
            } else if let last = jobs.last {
                if case .spilled = order { preconditionFailure("a spilled index is read in order only") }
                _ = try last()()
            }
        }
        var carried: [PreparedEvent] = []
        // A batch read before the engine wants it: its reader works out what the engine would
        // until it is asked for. An export's sign-ins cost more to read than the engine takes
        // over them: two readers.
        try ReadAhead.run(jobs, readers: reading == nil ? 1 : 2, meanwhile: { batch, asked in engine.workAhead(batch, until: asked) }) { number, batch in
            var events = carried + batch
            carried = []
            // Sign-ins sharing a time with the next batch's first wait for it: the engine takes
            // them in id order, and the next batch may hold smaller ids at that time.
            if let next = following(number) {
                if let cut = events.firstIndex(where: { $0.eventTime >= next }) {
                    carried = Array(events[cut...])
                    events.removeSubrange(cut...)
                }
            }
            guard let last = events.last?.eventTime else { return }
            read += events.count
            if countingPlaces { unknownPlaces += events.count { UnknownPlaces.isUnknown($0.event, at: placeSlots) } }
            pass.add(prepared: events)
            // The batches come in event-time order: what is behind the last one is settled.
            pass.checkpoint(last)
            let ready = pass.takeAlerts()
            if let emit { emit(ready) } else { taken += ready }
        }
        if !carried.isEmpty { pass.add(prepared: carried) }
        read += carried.count
        if countingPlaces { unknownPlaces += carried.count { UnknownPlaces.isUnknown($0.event, at: placeSlots) } }
        var outcome = pass.finish(keepingState: keepingState)
        if let emit {
            emit(outcome.alerts)
            outcome.alerts = []
        } else {
            outcome.alerts = taken + outcome.alerts
        }
        return (outcome, read, countingPlaces ? unknownPlaces : nil)
    }
}
