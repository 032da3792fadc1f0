import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
import TophhieRules
@testable import TophhieRulesFast
import TophhieSystem
@testable import TophhieCLI
@testable import TophhieReplay

/// A large file in time order is read from samples: a sign-in every stride, the runs between
/// them bounded by the samples' times, checked only as the second pass reads them. The alerts
/// are the whole-file replay's; where the samples are wrong, the second pass throws (the
/// command then reads the file with the full first pass) and never gives other alerts.
@Suite struct SparseFirstPassTests {
    static func text(_ value: JSONValue) -> String { String(decoding: value.canonicalData(), as: UTF8.self) }

    static let engine = Engine(rules: RuleLoader.load((try? RuleSource.read(paths: [RepositoryFiles.rules])) ?? []))

    static func wholeAlerts(_ events: [JSONValue]) throws -> [String] {
        let read = try events.map(SignInEvents.event)
        return engine.evaluate(EngineState(), events: read, now: read.map(\.eventTime).max()!).alerts.map(AlertJSON.line)
    }

    static func runs(_ path: String, chunk: Int, stride: Int) async throws -> [ReplayRun]? {
        try await BlockingWork.shared.run {
            SparseFirstPass.runs(try ReadableFile(path: path), chunkSize: chunk, stride: stride, minimumSize: 0)?.runs
        }
    }

    static func replay(_ path: String, chunk: Int, stride: Int) async throws -> (outcome: EngineOutcome, count: Int) {
        let replay = try #require(try await BlockingWork.shared.run { StreamedReplay.openSparse(path, chunkSize: chunk, stride: stride, minimumSize: 0) })
        let read = try await BlockingWork.shared.run { try replay.evaluateCounting(engine) }
        return (read.outcome, read.count)
    }

    /// A page newest first, an array and JSON lines oldest first, with sign-ins sharing a time
    /// and a repeated id, sampled every few sign-ins up to every half of the file: the runs
    /// follow each other in the file and in time, and the replay counts every sign-in and gives
    /// the whole-file replay's alerts.
    @Test(arguments: [11, 1 << 20])
    func aFileInTimeOrderReadFromSamplesGivesTheWholeFileAlerts(_ chunk: Int) async throws {
        let events = try ReplayProjectionTests.historySharingTimes(seed: 41, everyHours: 3, sharedAt: 60, repeated: 25)
        let whole = try Self.wholeAlerts(events)
        #expect(whole.count >= 3, "\(whole)")
        let page = try RepositoryFiles.temporary("sparse-page.json", Self.text(.object(["value": .array(events.reversed()), "@odata.nextLink": .string("https://graph.microsoft.com/v1.0/x")])))
        defer { RepositoryFiles.remove(page) }
        let array = try RepositoryFiles.temporary("sparse-array.json", "[" + events.map(Self.text).joined(separator: ", ") + "]")
        defer { RepositoryFiles.remove(array) }
        let lines = try RepositoryFiles.temporary("sparse-lines.jsonl", events.map(Self.text).joined(separator: "\n") + "\n")
        defer { RepositoryFiles.remove(lines) }
        let size = events.map(Self.text).joined(separator: ", ").utf8.count
        for (path, descending) in [(page, true), (array, false), (lines, false)] {
            for stride in [size / 60, size / 7, size / 2] {
                let runs = try #require(try await Self.runs(path, chunk: chunk, stride: stride), "\(path) every \(stride) bytes")
                #expect(runs.count >= (stride < size / 10 ? 20 : 2), "\(path) every \(stride): \(runs.count) runs")
                // In the engine's order: oldest first, each run's times after the last's.
                #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.latest <= $1.earliest }, "\(path) every \(stride)")
                let byPlace = descending ? runs.reversed() : runs
                #expect(zip(byPlace, byPlace.dropFirst()).allSatisfy { $0.end < $1.start }, "\(path) every \(stride)")
                // Only the last stretch is counted (in pieces, when it is long), and it is the
                // engine's first or last.
                let counted = runs.indices.filter { runs[$0].count >= 0 }
                #expect(!counted.isEmpty && counted == Array(descending ? 0..<counted.count : runs.count - counted.count..<runs.count), "\(path) every \(stride)")
                let read = try await Self.replay(path, chunk: chunk, stride: stride)
                #expect(read.count == events.count, "\(path) every \(stride)")
                #expect(read.outcome.alerts.map(AlertJSON.line) == whole, "\(path) every \(stride)")
            }
        }
    }

    /// The newer half of the sign-ins first: samples out of order with each other are not taken.
    @Test func samplesOutOfTimeOrderAreNotTaken() async throws {
        var factory = ReplayProjectionTests.factory(seed: 43)
        let events = ReplayProjectionTests.history(&factory, everyHours: 3)
        let rotated = Array(events[(events.count / 2)...] + events[..<(events.count / 2)])
        let path = try RepositoryFiles.temporary("sparse-rotated.json", "[" + rotated.map(Self.text).joined(separator: ", ") + "]")
        defer { RepositoryFiles.remove(path) }
        let size = rotated.map(Self.text).joined(separator: ", ").utf8.count
        #expect(try await Self.runs(path, chunk: 1 << 20, stride: size / 10) == nil)
        // Taken in order, as a check that the file is otherwise one this pass reads.
        let ordered = try RepositoryFiles.temporary("sparse-ordered.json", "[" + events.map(Self.text).joined(separator: ", ") + "]")
        defer { RepositoryFiles.remove(ordered) }
        #expect(try await Self.runs(ordered, chunk: 1 << 20, stride: size / 10) != nil)
    }

    /// Samples in order, but a sign-in between two of them from before the first: the second
    /// pass finds it outside its run's times and says the file is not what was read.
    @Test func aSignInOutsideItsRunsTimesStopsTheSecondPass() async throws {
        var factory = ReplayProjectionTests.factory(seed: 43)
        var events = ReplayProjectionTests.history(&factory, everyHours: 3)
        let early = events.remove(at: 1)
        events.insert(early, at: events.count / 2)
        let path = try RepositoryFiles.temporary("sparse-misplaced.json", "[" + events.map(Self.text).joined(separator: ", ") + "]")
        defer { RepositoryFiles.remove(path) }
        let size = events.map(Self.text).joined(separator: ", ").utf8.count
        let runs = try #require(try await Self.runs(path, chunk: 1 << 20, stride: size / 3), "the samples are in order")
        #expect(runs.count >= 3)
        do {
            _ = try await Self.replay(path, chunk: 1 << 20, stride: size / 3)
            Issue.record("read on past a sign-in outside its run")
        } catch let error as SignInEventError {
            #expect(error.description.contains("do not read as whole sign-ins within the times of the samples around them"), "\(error)")
            #expect(!error.description.contains("the file changed"), "it did not: \(error)")
        }
    }

    /// A sign-in holding a list of objects that read as sign-ins themselves (an id and a time),
    /// where a sample falls: the sample is taken inside the sign-in, and the run before it,
    /// cut there, does not read. Graph's nested objects have no `createdDateTime`, so this
    /// takes a file of another making; strings cannot fool the samples (a quote in one is
    /// escaped, so no object reads there).
    @Test(arguments: [false, true])
    func aSampleInsideASignInStopsTheSecondPass(_ newestFirst: Bool) async throws {
        var factory = ReplayProjectionTests.factory(seed: 47)
        var events = ReplayProjectionTests.history(&factory, everyHours: 3)
        // The holder a third of the way into the file, so a sample falls in it and another
        // after it (the last stretch is read by the splitter, which would find it out itself).
        let holderAt = events.count / 3
        let holderIndex = newestFirst ? events.count - 1 - holderAt : holderAt
        guard case .object(var holder) = events[holderIndex], let time = holder["createdDateTime"] else { Issue.record("not a sign-in"); return }
        holder["related"] = .array((0..<400).map { .object(["id": .string("nested-\($0)"), "createdDateTime": time]) })
        events[holderIndex] = .object(holder)
        let ordered = newestFirst ? events.reversed() : events
        let texts = ordered.map(Self.text)
        let path = try RepositoryFiles.temporary("sparse-nested.json", "[" + texts.joined(separator: ", ") + "]")
        defer { RepositoryFiles.remove(path) }
        // A stride that lands inside the holder's list, counted from the first sign-in.
        let before = texts[..<holderAt].reduce(0) { $0 + $1.utf8.count + 2 }
        let stride = before + texts[holderAt].utf8.count / 2
        #expect(texts[holderAt].contains("},{\"createdDateTime\""))
        let runs = try #require(try await Self.runs(path, chunk: 1 << 20, stride: stride), "the samples are in order")
        let starts = Set(runs.map(\.start))
        let holderStart = 1 + before
        #expect(starts.contains { $0 > holderStart && $0 < holderStart + texts[holderAt].utf8.count }, "a sample inside the holder")
        do {
            _ = try await Self.replay(path, chunk: 1 << 20, stride: stride)
            Issue.record("read on past a run cut inside a sign-in")
        } catch let error as SignInEventError {
            #expect(error.description.contains("do not read as whole sign-ins within the times of the samples around them"), "\(error)")
            #expect(!error.description.contains("the file changed"), "it did not: \(error)")
        }
    }

    /// Where a record could start, from bytes alone: at the brace after `}` and a comma
    /// (whitespace between any of them), or after a new line when a brace starts the line; a
    /// guess, so bytes inside a string count too.
    @Test func aRecordBoundaryIsGuessedFromTheBytesAlone() {
        func next(_ text: String, _ layout: JSONElementSplitter.Layout, from: Int = 0) -> [Int]? {
            Array(text.utf8).withUnsafeBytes { RecordBoundary.next(in: $0, layout: layout, from: from) }.map { [$0.start, $0.separator] }
        }
        // `{"createdDateTime":1}` is 21 bytes: records are told from a nested list's objects by it.
        let t = #"{"createdDateTime":1}"#
        #expect(next("[\(t),\(t)]", .document) == [23, 22])
        #expect(next("[\(t) ,\n\t \(t)]", .document) == [27, 23])
        #expect(next(#"[{"a":[{"x":1},{"y":2}]},"# + t + "]", .document) == [25, 24], "a nested list's objects are passed over")
        #expect(next(#"[{"a":"}, {"}]"#, .document) == [10, 8], "bytes inside a string, when the object runs past them, are a guess")
        #expect(next(#"[{"a":"}, {\"createdDateTime\":1}"}]"#, .document) == nil, "bytes in a string that close no object with the member are passed over")
        #expect(next(#"[{"a":1}, 2, {"b":2}]"#, .document) == nil, "no brace after the comma")
        #expect(next("{\"a\":1}\r\n{\"b\":2}\n", .lines) == [9, 8])
        #expect(next("{\"a\":1}\n \n{\"b\":2}", .lines) == [10, 9], "a line not starting with a brace is passed over")
        #expect(next("{\"a\":1}\n", .lines) == nil)
    }

    /// The plan from the samples alone: in order either way, the runs bounded by the samples'
    /// times and oldest first; out of order, or with a last stretch that does not start at its
    /// sample's time, none.
    @Test func runsArePlannedFromTheSamplesTimes() {
        let t = (0..<5).map { Date(timeIntervalSince1970: Double($0) * 100) }
        let up = SparseFirstPass.plan(starts: [0, 100, 200], separators: [0, 98, 197], times: [t[0], t[1], t[2]], end: 300,
                                      tailCount: 4, tailEarliest: t[2], tailLatest: t[4])
        #expect(up?.latest == t[4])
        #expect(up?.runs == [ReplayRun(start: 0, end: 98, count: -1, earliest: t[0], latest: t[1]),
                             ReplayRun(start: 100, end: 197, count: -1, earliest: t[1], latest: t[2]),
                             ReplayRun(start: 200, end: 300, count: 4, earliest: t[2], latest: t[4])])
        let down = SparseFirstPass.plan(starts: [0, 100, 200], separators: [0, 98, 197], times: [t[4], t[3], t[2]], end: 300,
                                        tailCount: 2, tailEarliest: t[1], tailLatest: t[2])
        #expect(down?.latest == t[4])
        #expect(down?.runs == [ReplayRun(start: 200, end: 300, count: 2, earliest: t[1], latest: t[2]),
                               ReplayRun(start: 100, end: 197, count: -1, earliest: t[2], latest: t[3]),
                               ReplayRun(start: 0, end: 98, count: -1, earliest: t[3], latest: t[4])])
        // Equal times go either way.
        #expect(SparseFirstPass.plan(starts: [0, 100], separators: [0, 98], times: [t[1], t[1]], end: 150,
                                     tailCount: 1, tailEarliest: t[1], tailLatest: t[1]) != nil)
        // Out of order; the last stretch's first sign-in not its earliest (going forward) or
        // latest (going back); places not increasing.
        #expect(SparseFirstPass.plan(starts: [0, 100, 200], separators: [0, 98, 197], times: [t[0], t[2], t[1]], end: 300,
                                     tailCount: 1, tailEarliest: t[1], tailLatest: t[1]) == nil)
        #expect(SparseFirstPass.plan(starts: [0, 100], separators: [0, 98], times: [t[0], t[2]], end: 300,
                                     tailCount: 3, tailEarliest: t[1], tailLatest: t[3]) == nil)
        #expect(SparseFirstPass.plan(starts: [0, 100], separators: [0, 98], times: [t[3], t[2]], end: 300,
                                     tailCount: 3, tailEarliest: t[1], tailLatest: t[3]) == nil)
        #expect(SparseFirstPass.plan(starts: [0, 100, 100], separators: [0, 98, 98], times: [t[0], t[1], t[2]], end: 300,
                                     tailCount: 1, tailEarliest: t[2], tailLatest: t[2]) == nil)
    }
    /// The engine waits for the reading thread's first batch and the reading thread for the
    /// engine's last: the runs at both ends are a quarter of a batch. The file's first stride is
    /// sampled four times as often, and its last stretch, every sign-in of which is found, is
    /// cut into counted runs of a quarter of a batch; the replay reads every sign-in.
    @Test(arguments: [false, true])
    func theRunsTheEngineTakesFirstAndLastAreAQuarterOfABatch(_ newestFirst: Bool) async throws {
        let quarter = SparseFirstPass.runLength / SparseFirstPass.endPieces
        let start = 1_714_557_600.0
        let records = (0..<(3 * quarter)).map { n in
            let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: start + Double(n) * 7))
            return #"{"id":"s\#(n)","createdDateTime":"\#(time)","userId":"u\#(n % 7)","status":{"errorCode":\#(n % 5 == 0 ? 50126 : 0)}}"#
        }
        let text = newestFirst
            ? #"{"value": ["# + records.reversed().joined(separator: ", ") + "]}"
            : records.joined(separator: "\n") + "\n"
        let path = try RepositoryFiles.temporary(newestFirst ? "ends-page.json" : "ends-lines.jsonl", text)
        defer { RepositoryFiles.remove(path) }
        let stride = text.utf8.count / 2
        let runs = try #require(try await Self.runs(path, chunk: 1 << 20, stride: stride))
        let counted = runs.filter { $0.count >= 0 }
        #expect(counted.count == 2, "the last stretch, half the file, in two pieces: \(counted.map(\.count))")
        #expect(counted.allSatisfy { $0.count <= quarter })
        #expect(counted.reduce(0) { $0 + $1.count } > quarter)
        let sampled = runs.filter { $0.count < 0 }
        #expect(sampled.count >= 3 && sampled.allSatisfy { $0.end - $0.start < stride / 2 }, "the first stride sampled four times as often: \(sampled.map { $0.end - $0.start })")
        // In the engine's order, oldest first, with the counted pieces at the file's end.
        #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.latest <= $1.earliest })
        let ends = newestFirst ? Array(runs.prefix(counted.count)) : Array(runs.suffix(counted.count))
        #expect(ends == counted, "the counted pieces are the engine's \(newestFirst ? "first" : "last") runs")
        let read = try await Self.replay(path, chunk: 1 << 20, stride: stride)
        #expect(read.count == records.count)
        let whole = try Self.wholeAlerts(records.map { try JSONValue.parse(Data($0.utf8)) })
        #expect(read.outcome.alerts.map(AlertJSON.line) == whole)
    }
}
