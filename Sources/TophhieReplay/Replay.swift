import Foundation
import TophhieJSON
import TophhieRules
import TophhieRulesFast
import TophhieSystem

/// What a replay or a match of a file came to.
public struct ReplayOutcome: Sendable {
    public var events: Int
    public var polls: Int
    public var alerts: Int
    /// Sign-ins whose place the rules take as unknown (as the poll line counts them); nil when
    /// the rules read no place.
    public var unknownPlaces: Int? = nil
    /// Sign-ins a live agent's sweep would have met after the lookback had passed them.
    public var lateArrivals: LateArrivals?
    /// Why each way of reading the file that was tried gave way to the next (`--verbose`).
    public var notes: [String]
    /// A replay that checks records as it reads them stopped at one that needs the poll's
    /// decoder, or at a file it does not read that way: this many alerts were written. The file
    /// is then checked first (`ExportConversion.convert`) and replayed again, passing over them.
    public var stoppedForCheck: Int? = nil
}

/// Runs a file of sign-ins through the rules exactly as the agent would, choosing how to read
/// it: a large file in time order from samples of it, a Graph page, an array or JSON lines in
/// two passes a batch at a time, anything else whole. Each way that gives way says why
/// (`ReplayOutcome.notes`); the alerts are the same whichever reads the file, and each is written
/// once, as soon as it is final.
public enum Replay {
    /// Replays `file`.
    /// - Parameters:
    ///   - checkingRecords: the file, Graph's own shape, was not checked (`ExportConversion.convert`):
    ///     each record is given the quick check as the streamed readers read it. At the first
    ///     that does not pass, or a file they do not read, the replay stops (`stoppedForCheck`).
    ///     A file of plain records is read twice rather than three times. The fast engine only.
    ///   - passingOver: alerts a replay of the same file that stopped for its check wrote.
    ///   - write: each alert, in order (last event time, rule, id), as soon as it is final.
    ///   - progress: a line of progress now and then (a terminal's status line).
    /// - Throws: `ReplayFileError` naming the file and the record that is wrong.
    public static func run(_ file: String, rules: RuleSet, settings: EngineSettings, engine choice: EngineChoice,
                           checkingRecords: Bool = false, passingOver written: Int = 0,
                           write: @escaping @Sendable (Alert) -> Void, progress: (@Sendable (String) -> Void)? = nil) async throws -> ReplayOutcome {
        let engine = Engine(rules: rules, settings: settings)
        let writer = ReplayAlertWriter(write: write, passingOver: written)
        let checking = checkingRecords && choice == .fast
        let attempt = try await BlockingWork.shared.run { streamed(file, engine: engine, choice: choice, checking: checking, writer: writer) }
        var notes = attempt.notes
        if let outcome = attempt.outcome {
            return ReplayOutcome(events: attempt.count, polls: 1, alerts: writer.count, unknownPlaces: attempt.unknownPlaces,
                                 lateArrivals: outcome.lateArrivals, notes: notes)
        }
        if checking {
            return ReplayOutcome(events: 0, polls: 0, alerts: 0, notes: notes, stoppedForCheck: writer.writtenCount)
        }
        // A poll timeline is read a poll at a time; anything else the streamed reader did not
        // take is read whole. For the fast engine only what the rules read is built.
        // The engine already built for the fast way: planning the rules again costs a compile.
        let evaluator: any RuleEvaluator = choice == .fast ? engine : PlainEvaluator(rules: rules, settings: settings)
        let projection = choice == .fast ? engine.eventProjection : .everything
        let timeline = try await BlockingWork.shared.run { StreamedTimeline.open(file, keeping: projection) }
        let input = timeline == nil ? try await BlockingWork.shared.run { try WholeReplayFile.read(file, keeping: projection) } : nil
        notes.append(timeline != nil ? "read as a poll timeline, a poll at a time" : "read whole")
        let pollCount = timeline?.polls.count ?? input?.polls.count ?? 0
        let eventCount = timeline?.eventCount ?? input?.eventCount ?? 0
        let countingPlaces = UnknownPlaces.counted(readingPaths: choice == .fast ? engine.eventPaths : nil)
        let read = try await BlockingWork.shared.run { () throws -> (LateArrivals?, Int) in
            var unknownPlaces = 0
            writer.beginAttempt()
            var state = EngineState()
            var processed = 0, index = 0
            var lateEvaluated = 0, lateUnreachable = 0
            var lateRange: (Date, Date)?
            func evaluate(_ poll: ReplayInput.Poll) {
                if countingPlaces { unknownPlaces += poll.events.count(where: UnknownPlaces.isUnknown) }
                progress?("replay: poll \(index + 1)/\(pollCount), \(processed)/\(eventCount) events")
                let outcome = evaluator.evaluate(state, events: poll.events, now: poll.at, alertOnlyAfter: nil)
                state = outcome.state
                if let late = outcome.lateArrivals {
                    lateEvaluated += late.evaluated
                    lateUnreachable += late.unreachable
                    lateRange = (min(lateRange?.0 ?? late.earliest, late.earliest), max(lateRange?.1 ?? late.latest, late.latest))
                }
                processed += poll.events.count
                index += 1
                writer.emit(outcome.alerts)
            }
            if let timeline {
                do { try timeline.forEachPoll(evaluate) } catch let error as SignInEventError {
                    throw ReplayFileError("\(file): \(error.message)")
                } catch let error as FileError {
                    throw ReplayFileError(error.description)
                }
            } else {
                input?.polls.forEach(evaluate)
            }
            // The replay meets what a live agent's sweep would: say it rather than drop it.
            return (lateRange.map { LateArrivals(evaluated: lateEvaluated, unreachable: lateUnreachable, earliest: $0.0, latest: $0.1) }, unknownPlaces)
        }
        return ReplayOutcome(events: eventCount, polls: pollCount, alerts: writer.count, unknownPlaces: countingPlaces ? read.1 : nil,
                             lateArrivals: read.0, notes: notes)
    }

    /// Sign-ins of an export read back at a time: read ahead by two threads, which hold twice the
    /// batches, they are half as large as one reader's, so the peak stays what one reader's was.
    public static let exportBatchSize = 2048

    /// Replays an export read for a streamed replay (`ExportConversion.index`): its records kept
    /// are read back from the export itself in the engine's order, mapped, and handed to the
    /// fast engine a batch at a time. Nothing is written; memory is the index and a few batches.
    /// An index whose records were not checked (`ExportIndex.checked`) has each checked as it is
    /// read: at the first that does not pass, the replay stops (`stoppedForCheck`), and the
    /// export is then read again, checked, and replayed `passingOver` the alerts written.
    /// - Parameters: as `run`, with the engine the fast one; `batchSize`, the sign-ins read back
    ///   at a time (tests make it small).
    /// - Throws: `ReplayFileError` naming the file when it changed while it was read.
    public static func run(export index: ExportIndex, rules: RuleSet, settings: EngineSettings, passingOver written: Int = 0,
                           batchSize: Int = exportBatchSize, write: @escaping @Sendable (Alert) -> Void) async throws -> ReplayOutcome {
        let engine = Engine(rules: rules, settings: settings)
        let writer = ReplayAlertWriter(write: write, passingOver: written)
        let checking = !index.checked
        // Checked as they are read only straight into the engine's slots: a keyword search
        // reads each record whole, and would stop at the first.
        if checking, !index.reading.reading(for: engine, checking: true).readsIntoSlots {
            return ReplayOutcome(events: 0, polls: 0, alerts: 0, notes: ["not checked as it was read: the rules read each record whole"], stoppedForCheck: 0)
        }
        let sampled = index.runs != nil
        // The outcome, or nil when the replay stopped, with why when samples gave way.
        let (read, gaveWay) = try await BlockingWork.shared.run { () throws -> ((outcome: EngineOutcome, count: Int, unknownPlaces: Int?)?, String?) in
            var replay = StreamedReplay(file: index.file, layout: index.runs?.layout ?? .document, latest: index.latest, order: index.order(),
                                        reading: index.reading)
            replay.checking = checking
            replay.latestEntry = index.latestEntry
            // What the first pass freed goes back before the second's threads fill their heaps.
            MallocArenas.releaseFree()
            writer.beginAttempt()
            do {
                return try index.naming {
                    do {
                        return (try writer.writingAhead { try replay.evaluateCounting(engine, batchSize: batchSize, keepingState: false, emit: writer.emitAhead) }, nil)
                    } catch let error as SignInEventError where sampled {
                        // Samples guessed wrong (or the file changed): the file is read again
                        // with every record found, checked, as after a record that fails.
                        return (nil, error.message)
                    }
                }
            } catch is PlainRecordCheck.Failed {
                return (nil, nil)
            }
        }
        guard let read else {
            let note = gaveWay.map { "read from samples of its runs, then gave way: \($0)" } ?? "read its records' ids and times, then stopped at a record its check had to read"
            return ReplayOutcome(events: 0, polls: 0, alerts: 0, notes: [note], stoppedForCheck: writer.writtenCount)
        }
        let how = sampled ? "read from samples of its runs, each record checked and mapped into the engine in time order"
                : checking ? "its records' ids and times indexed, then each checked and mapped into the engine in time order"
                           : "its records checked and indexed, then mapped into the engine in time order"
        return ReplayOutcome(events: read.count, polls: 1, alerts: writer.count, unknownPlaces: read.unknownPlaces,
                             lateArrivals: read.outcome.lateArrivals, notes: ["read from the export itself in two passes: \(how)"])
    }

    /// Which detection rules each sign-in of an export read for a streamed replay satisfies, in
    /// the file's order, each (rule, id) once: `rules match` over the export itself, its records
    /// kept read back a batch at a time, mapped and matched by the fast engine.
    /// - Throws: `ReplayFileError` naming the file when it changed while it was read.
    package static func matches(export index: ExportIndex, rules: RuleSet) async throws -> (outcome: ReplayOutcome, matches: [DetectionMatch]) {
        let engine = Engine(rules: rules)
        let matcher = DetectionMatches(rules: rules)
        let matches = try await BlockingWork.shared.run { () throws -> [DetectionMatch] in
            let entries = try index.naming { try index.entriesInFileOrder() }
            MallocArenas.releaseFree()
            let reading = index.reading.reading(for: engine)
            let file = index.file
            // Read on two threads ahead of the matching, batch after batch.
            let jobs: [ReadAhead.Job<[any FastEvent]>] = stride(from: 0, to: entries.count, by: exportBatchSize).map { start in
                let batch = entries[start..<min(start + exportBatchSize, entries.count)]
                return { { try ReplayBatch.read(batch, file: file, engine: engine, reading: reading) } }
            }
            var told = Set<String>()
            var matches: [DetectionMatch] = []
            try index.naming {
                try ReadAhead.run(jobs, readers: 2) { _, events in matches += matcher.matches(events, told: &told) }
            }
            return matches
        }
        return (ReplayOutcome(events: index.count, polls: 1, alerts: 0, notes: ["matched from the export itself, its records read back in the file's order"]), matches)
    }

    /// The two-pass readers of a Graph page, an array or JSON lines (one poll at the latest
    /// sign-in's time): the outcome, or nil with the reasons each gave way.
    private static func streamed(_ file: String, engine: Engine, choice: EngineChoice, checking: Bool, writer: ReplayAlertWriter) -> (count: Int, unknownPlaces: Int?, notes: [String], outcome: EngineOutcome?) {
        guard choice == .fast else {
            return (0, nil, ["the plain evaluator reads the file whole, every field of each sign-in, and takes a poll at once"], nil)
        }
        var notes: [String] = []
        // What the file's check freed goes back before this pass's threads fill their heaps.
        MallocArenas.releaseFree()
        // A large file in time order is first read from samples of it; when the second pass
        // finds them wrong (a sample inside a sign-in, a sign-in outside its run's times), the
        // file is read with every sign-in found.
        let checked = checking ? ", each record checked as it was read" : ""
        if var sparse = StreamedReplay.openSparse(file) {
            sparse.checking = checking
            writer.beginAttempt()
            do {
                let read = try writer.writingAhead { try sparse.evaluateCounting(engine, keepingState: false, emit: writer.emitAhead) }
                return (read.count, read.unknownPlaces, ["read from samples of its runs, in two passes\(checked)"], read.outcome)
            } catch let failed as PlainRecordCheck.Failed {
                // The same record stops the full first pass's reading: the file is checked first.
                notes.append("reading from samples stopped for the file's check: \(failed)")
                return (0, nil, notes, nil)
            } catch {
                notes.append("reading from samples gave way: \(error)")
            }
        } else {
            notes.append("not read from samples: not a file this large in time order")
        }
        guard var replay = StreamedReplay.open(file) else {
            notes.append("not read in two passes: not a Graph page, a JSON array or JSON lines of sign-ins")
            return (0, nil, notes, nil)
        }
        if checking, case .spilled = replay.order {
            notes.append("not read in two passes before the file's check: its sign-ins are in no time order, too many to sort in memory")
            return (0, nil, notes, nil)
        }
        replay.checking = checking
        writer.beginAttempt()
        do {
            let read = try writer.writingAhead { try replay.evaluateCounting(engine, keepingState: false, emit: writer.emitAhead) }
            return (read.count, read.unknownPlaces, notes + ["read in two passes\(checked)"], read.outcome)
        } catch let failed as PlainRecordCheck.Failed {
            notes.append("reading in two passes stopped for the file's check: \(failed)")
            return (0, nil, notes, nil)
        } catch {
            // The whole-file way names the record that no longer reads as it did.
            notes.append("reading in two passes gave way: \(error)")
            return (0, nil, notes, nil)
        }
    }

    /// Which detection rules each sign-in of `file` satisfies, in file order, each (rule, id)
    /// once: what `rules match` lists.
    /// - Throws: `ReplayFileError` naming the file and the record that is wrong.
    package static func matches(_ file: String, rules: RuleSet, engine choice: EngineChoice) async throws -> (outcome: ReplayOutcome, matches: [DetectionMatch]) {
        let engine = Engine(rules: rules)
        let matcher = DetectionMatches(rules: rules)
        // Streamed in one pass (a few batches of sign-ins in memory at a time) when the file
        // allows; the plain evaluator reads the whole file and every field of each sign-in.
        if choice == .fast, let streamed = try await BlockingWork.shared.run({ StreamedMatch.run(file, engine: engine, matcher: matcher) }) {
            return (ReplayOutcome(events: streamed.count, polls: 1, alerts: 0, notes: ["matched in one pass, a batch at a time"]), streamed.matches)
        }
        let input = try await BlockingWork.shared.run { try WholeReplayFile.read(file, keeping: choice == .fast ? engine.eventProjection : .everything) }
        let events = input.polls.flatMap(\.events)
        let matches = choice == .fast ? matcher.matches(events) : PlainMatching.matches(rules, events)
        return (ReplayOutcome(events: input.eventCount, polls: input.polls.count, alerts: 0, notes: ["read whole"]), matches)
    }
}
