import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules
@testable import TophhieRulesFast
import TophhieSimulator
import TophhieSystem
@testable import TophhieCLI
@testable import TophhieReplay

/// Replay builds only the parts of each sign-in the rules read; the default pack must fire
/// exactly the same alerts as over the fully parsed events.
@Suite(.timeLimit(.minutes(20))) struct ReplayProjectionTests {
    @Test func thePackFiresTheSameAlertsOverProjectedAndFullEvents() throws {
        var factory = SignInFactory(seed: 11, account: .init(userID: "26be570a-ae82-4189-b4e2-a37c6808512d", userPrincipalName: "jane@contoso.com", displayName: "Jane"))
        let start = Date(timeIntervalSince1970: 1_788_000_000)
        var events: [JSONValue] = []
        for hour in 0..<(24 * 20) where hour % 5 == 0 {
            events.append(factory.signIn(at: start.addingTimeInterval(Double(hour) * 3600), place: .london, device: hour % 3 == 0 ? .phone : .laptop))
        }
        let burstStart = start.addingTimeInterval(20 * 86_400)
        for i in 0..<8 { events.append(factory.signIn(at: burstStart.addingTimeInterval(Double(i) * 30), place: .lagos, device: .unknownLinux, errorCode: 50126)) }
        events.append(factory.signIn(at: burstStart.addingTimeInterval(300), place: .lagos, device: .unknownLinux))
        events.append(factory.signIn(at: burstStart.addingTimeInterval(1800), place: .sydney, app: .legacyIMAP))
        let page = JSONValue.object(["value": .array(events)]).canonicalData()

        let rules = RuleLoader.load(try RuleSource.read(paths: [RepositoryFiles.rules]))
        let engine = Engine(rules: rules)
        #expect(!engine.eventProjection.whole, "the default pack reads named fields only")
        func alerts(_ input: ReplayInput) -> [String] {
            var state = EngineState()
            var ids: [String] = []
            for poll in input.polls {
                let outcome = engine.evaluate(state, events: poll.events, now: poll.at)
                state = outcome.state
                ids += outcome.alerts.map { "\($0.rule.id) \($0.id) \($0.summary)" }
            }
            return ids
        }
        let full = alerts(try ReplayInput(data: page))
        let projected = alerts(try ReplayInput(data: page, keeping: engine.eventProjection))
        #expect(full.count >= 3, "\(full)")
        #expect(projected == full)
    }

    static func factory(seed: UInt64) -> SignInFactory {
        SignInFactory(seed: seed, account: .init(userID: "26be570a-ae82-4189-b4e2-a37c6808512d", userPrincipalName: "jane@contoso.com", displayName: "Jane"))
    }

    static let burstStart = Date(timeIntervalSince1970: 1_788_000_000 + 16 * 86_400)

    /// Sixteen days of London sign-ins every few hours, then seven failed passwords from Lagos
    /// 40 s apart and a success: a burst, a new country, travel. Oldest first.
    static func history(_ factory: inout SignInFactory, everyHours: Int) -> [JSONValue] {
        let start = Date(timeIntervalSince1970: 1_788_000_000)
        var events: [JSONValue] = []
        for hour in 0..<(24 * 16) where hour % everyHours == 0 {
            events.append(factory.signIn(at: start.addingTimeInterval(Double(hour) * 3600), place: .london, device: hour % 3 == 0 ? .phone : .laptop))
        }
        for i in 0..<7 { events.append(factory.signIn(at: burstStart.addingTimeInterval(Double(i) * 40), place: .lagos, device: .unknownLinux, errorCode: 50126)) }
        events.append(factory.signIn(at: burstStart.addingTimeInterval(400), place: .lagos, device: .unknownLinux))
        return events
    }

    /// `history`, with three more sign-ins at the time of the one at `sharedAt` (other ids) and
    /// the one at `repeated` repeated after itself, oldest first.
    static func historySharingTimes(seed: UInt64, everyHours: Int, sharedAt: Int, repeated: Int) throws -> [JSONValue] {
        var factory = Self.factory(seed: seed)
        var events = Self.history(&factory, everyHours: everyHours)
        guard case .object(var shared) = events[sharedAt] else { throw SignInEventError("the factory's sign-in is not an object") }
        for suffix in ["z", "a", "m"] {
            shared["id"] = .string("shared-\(suffix)")
            events.insert(.object(shared), at: sharedAt + 1)
        }
        events.insert(events[repeated], at: repeated + 1)
        return events
    }

    /// The streamed replay (two passes, batches in event-time order) must give the alerts the
    /// whole-file replay gives: records cut across chunks, newest first as Graph pages come, a
    /// repeated id, and an id re-published with other content.
    @Test(arguments: [(7, 3), (1 << 20, 4096)])
    func theStreamedReplayFiresWhatTheWholeFileReplayFires(_ chunk: Int, _ batch: Int) async throws {
        var factory = Self.factory(seed: 23)
        var events = Self.history(&factory, everyHours: 4)
        events.append(factory.signIn(at: Self.burstStart.addingTimeInterval(2400), place: .sydney, app: .legacyIMAP))
        // A copy of one sign-in, and another re-published with a failure where it had a success.
        events.append(events[10])
        guard case .object(var changed) = events[20], case .object(var status) = changed["status"] ?? .null else {
            Issue.record("the factory's sign-in has no status object"); return
        }
        status["errorCode"] = .int(50053)
        changed["status"] = .object(status)
        events.append(.object(changed))
        let newestFirst = events.reversed().map { $0 }
        let path = try RepositoryFiles.temporary("streamed.json", String(decoding: JSONValue.object(["value": .array(newestFirst)]).canonicalData(), as: UTF8.self))
        defer { RepositoryFiles.remove(path) }

        let rules = RuleLoader.load(try RuleSource.read(paths: [RepositoryFiles.rules]))
        let engine = Engine(rules: rules)
        let input = try ReplayInput(data: try Data(contentsOf: URL(fileURLWithPath: path)), keeping: engine.eventProjection)
        let whole = engine.evaluate(EngineState(), events: input.polls[0].events, now: input.polls[0].at)
        let replay = try #require(try await BlockingWork.shared.run { StreamedReplay.open(path, chunkSize: chunk) })
        // On a blocking-work thread, as replay runs it: the prefetch waits for its worker.
        let read = try await BlockingWork.shared.run { try replay.evaluateCounting(engine, batchSize: batch) }
        #expect(read.count == events.count)
        let streamed = read.outcome
        #expect(whole.alerts.count >= 3, "\(whole.alerts.map(\.rule.id))")
        #expect(streamed.alerts.map(AlertJSON.line) == whole.alerts.map(AlertJSON.line))
        // The streamed replay forgets at its checkpoints what no later batch can need: its state
        // is the whole-file replay's within the horizon of the last sign-in, and the baselines
        // and familiar places whole. (Revisions are digests of what was read, slots here and the
        // projected tree there: the same ids carry one.)
        let (a, b) = (streamed.state, whole.state)
        let latest = try #require(replay.latest)
        let kept = Set(b.seen.filter { $1 > latest.addingTimeInterval(-engine.horizon) }.keys)
        #expect(kept.isSubset(of: Set(a.seen.keys)) && Set(a.seen.keys).isSubset(of: Set(b.seen.keys)))
        #expect(a.seen.count < b.seen.count, "the checkpoints forgot nothing")
        #expect(a.revisions.map { Set($0.keys) } == Set(a.seen.keys))
        #expect(Array(b.recent.suffix(a.recent.count)) == a.recent)
        #expect(a.baselines == b.baselines)
        #expect(a.familiar == b.familiar)
        #expect(a.episodes.keys.allSatisfy { b.episodes[$0] != nil })
    }

    /// A file in time order is read back in runs: newest first (a Graph page) or oldest first
    /// (JSON lines), with sign-ins sharing a time across runs, repeated ids, runs given up for
    /// entries when the order breaks after the index was dropped; the alerts are the whole-file
    /// replay's each time.
    @Test(arguments: [(3, 4), (5, 1000), (64, 7)])
    func filesInTimeOrderAreReadInRunsWithTheSameAlerts(_ runLength: Int, _ indexLimit: Int) async throws {
        // Three sign-ins sharing one time, and a repeated one, where runs will cut them apart.
        let events = try Self.historySharingTimes(seed: 31, everyHours: 5, sharedAt: 40, repeated: 20)
        let rules = RuleLoader.load(try RuleSource.read(paths: [RepositoryFiles.rules]))
        let engine = Engine(rules: rules)
        let whole = engine.evaluate(EngineState(), events: try events.map(SignInEvents.event), now: try events.map(SignInEvents.event).map(\.eventTime).max()!)
        #expect(whole.alerts.count >= 3, "\(whole.alerts.map(\.rule.id))")
        let newestFirst = try RepositoryFiles.temporary("runs-page.json", String(decoding: JSONValue.object(["value": .array(events.reversed())]).canonicalData(), as: UTF8.self))
        defer { RepositoryFiles.remove(newestFirst) }
        let oldestFirst = try RepositoryFiles.temporary("runs-lines.jsonl", events.map { String(decoding: $0.canonicalData(), as: UTF8.self) }.joined(separator: "\n"))
        defer { RepositoryFiles.remove(oldestFirst) }
        for path in [newestFirst, oldestFirst] {
            let replay = try #require(try await BlockingWork.shared.run { StreamedReplay.open(path, chunkSize: 11, runLength: runLength, indexLimit: indexLimit) })
            guard case .runs(let runs) = replay.order else { Issue.record("\(path) is in time order"); continue }
            #expect(runs.count == (events.count + runLength - 1) / runLength)
            let streamed = try await BlockingWork.shared.run { try replay.evaluate(engine) }
            #expect(streamed.alerts.map(AlertJSON.line) == whole.alerts.map(AlertJSON.line), "\(path)")
        }
        // In order for its first sign-ins, then not: the runs are given up and every entry kept.
        var broken = events
        broken.append(events[3])
        let late = try RepositoryFiles.temporary("runs-broken.jsonl", broken.map { String(decoding: $0.canonicalData(), as: UTF8.self) }.joined(separator: "\n"))
        defer { RepositoryFiles.remove(late) }
        let replay = try #require(try await BlockingWork.shared.run { StreamedReplay.open(late, chunkSize: 11, runLength: runLength, indexLimit: indexLimit) })
        guard case .entries = replay.order else { Issue.record("a file out of order keeps each sign-in"); return }
        let expected = engine.evaluate(EngineState(), events: try broken.map(SignInEvents.event), now: try broken.map(SignInEvents.event).map(\.eventTime).max()!)
        let streamed = try await BlockingWork.shared.run { try replay.evaluate(engine, batchSize: 5) }
        #expect(streamed.alerts.map(AlertJSON.line) == expected.alerts.map(AlertJSON.line))
    }

    /// A large file in time order has its first pass read in two halves side by side: a page
    /// newest first, an array and JSON lines oldest first, with sign-ins sharing a time and a
    /// repeated id; the halves' runs hold every sign-in, and the alerts are the whole-file
    /// replay's. Where the middle of the file falls inside a string holding `}, {`, the halves
    /// are not taken and the file is read in one pass, with the same alerts.
    @Test(arguments: [11, 1 << 20])
    func aLargeFileInTimeOrderIsReadInTwoHalvesWithTheSameAlerts(_ chunk: Int) async throws {
        let events = try Self.historySharingTimes(seed: 41, everyHours: 3, sharedAt: 60, repeated: 25)
        let rules = RuleLoader.load(try RuleSource.read(paths: [RepositoryFiles.rules]))
        let engine = Engine(rules: rules)
        func wholeAlerts(_ events: [JSONValue]) throws -> [String] {
            let read = try events.map(SignInEvents.event)
            return engine.evaluate(EngineState(), events: read, now: read.map(\.eventTime).max()!).alerts.map(AlertJSON.line)
        }
        let whole = try wholeAlerts(events)
        #expect(whole.count >= 3, "\(whole)")
        func text(_ value: JSONValue) -> String { String(decoding: value.canonicalData(), as: UTF8.self) }
        let page = try RepositoryFiles.temporary("halves-page.json", text(.object(["value": .array(events.reversed())])))
        defer { RepositoryFiles.remove(page) }
        let array = try RepositoryFiles.temporary("halves-array.json", "[" + events.map(text).joined(separator: ", ") + "]")
        defer { RepositoryFiles.remove(array) }
        let lines = try RepositoryFiles.temporary("halves-lines.jsonl", events.map(text).joined(separator: "\n") + "\n")
        defer { RepositoryFiles.remove(lines) }
        for (path, layout) in [(page, JSONElementSplitter.Layout.document), (array, .document), (lines, .lines)] {
            let halves = try await BlockingWork.shared.run {
                HalvedFirstPass.runs(try ReadableFile(path: path), chunkSize: chunk, runLength: 5, minimumSize: 0)
            }
            let taken = try #require(halves, "\(path) is read in halves")
            #expect(taken.layout == layout)
            #expect(taken.runs.count == events.count && taken.runs.inOrder)
            #expect(taken.runs.runs.map(\.count).reduce(0, +) == events.count)
            let replay = try #require(try await BlockingWork.shared.run { StreamedReplay.open(path, chunkSize: chunk, runLength: 5, halvingFrom: 0) })
            guard case .runs = replay.order else { Issue.record("\(path) is in time order"); continue }
            let streamed = try await BlockingWork.shared.run { try replay.evaluate(engine) }
            #expect(streamed.alerts.map(AlertJSON.line) == whole, "\(path)")
        }
        // Each half in time order, but not the two together: the newer half of the sign-ins
        // first, cut so that the middle of the file falls in its last line. Read in one pass.
        let texts = events.map(text)
        let size = texts.reduce(0) { $0 + $1.utf8.count + 1 }
        let cut = try #require((1..<events.count).first { k in
            let firstPart = texts[k...].reduce(0) { $0 + $1.utf8.count + 1 }
            return firstPart - texts.last!.utf8.count - 1 <= size / 2 && size / 2 < firstPart
        })
        let rotated = Array(events[cut...] + events[..<cut])
        let joined = try RepositoryFiles.temporary("halves-joined.jsonl", rotated.map(text).joined(separator: "\n") + "\n")
        defer { RepositoryFiles.remove(joined) }
        let joinedHalves = try await BlockingWork.shared.run {
            HalvedFirstPass.runs(try ReadableFile(path: joined), chunkSize: chunk, runLength: 5, minimumSize: 0) != nil
        }
        #expect(!joinedHalves, "halves out of order with each other are not taken")
        let rejoined = try #require(try await BlockingWork.shared.run { StreamedReplay.open(joined, chunkSize: chunk, runLength: 5, halvingFrom: 0) })
        let rejoinedAlerts = try await BlockingWork.shared.run { try rejoined.evaluate(engine) }
        #expect(rejoinedAlerts.alerts.map(AlertJSON.line) == (try wholeAlerts(rotated)))
        // The oldest sign-in carries a string longer than the rest of the file with `}, {` in
        // it: the middle of the file falls before that, and the boundary found there is not one.
        guard case .object(var hostile) = events[0] else { Issue.record("not an object"); return }
        let rest = events.dropFirst().map(text).joined(separator: ", ").utf8.count
        hostile["note"] = .string(String(repeating: "a", count: rest * 2) + "}, {" + String(repeating: "b", count: 100))
        var withHostile = events
        withHostile[0] = .object(hostile)
        let tricked = try RepositoryFiles.temporary("halves-hostile.json", "[" + withHostile.map(text).joined(separator: ", ") + "]")
        defer { RepositoryFiles.remove(tricked) }
        let (found, halves) = try await BlockingWork.shared.run { () throws -> (Int?, Bool) in
            let file = try ReadableFile(path: tricked)
            let size = try file.size()
            return (HalvedFirstPass.boundary(file, layout: .document, from: size / 2, size: size),
                    HalvedFirstPass.runs(file, chunkSize: chunk, runLength: 5, minimumSize: 0) != nil)
        }
        let inside = try #require(found, "a boundary is found in the string")
        #expect(inside < text(withHostile[0]).utf8.count, "the boundary found is inside the first sign-in")
        #expect(!halves, "the halves are not taken")
        let replay = try #require(try await BlockingWork.shared.run { StreamedReplay.open(tricked, chunkSize: chunk, runLength: 5, halvingFrom: 0) })
        let streamed = try await BlockingWork.shared.run { try replay.evaluate(engine) }
        #expect(streamed.alerts.map(AlertJSON.line) == (try wholeAlerts(withHostile)))
    }

    /// Between the two passes the file changes under the replay, keeping its length: a time
    /// moved out of its run, a comma or a newline between two sign-ins gone, a brace gone. The
    /// second pass, which reads a run's sign-ins one after another without splitting them again,
    /// says the file changed (the replay then reads it the whole-file way), and never reads on.
    @Test func aFileChangedBetweenThePassesIsSaidToHaveChanged() async throws {
        var factory = Self.factory(seed: 43)
        let events = Self.history(&factory, everyHours: 6)
        func text(_ value: JSONValue) -> String { String(decoding: value.canonicalData(), as: UTF8.self) }
        let rules = RuleLoader.load(try RuleSource.read(paths: [RepositoryFiles.rules]))
        let engine = Engine(rules: rules)
        let array = "[" + events.map(text).joined(separator: ", ") + "]"
        let lines = events.map(text).joined(separator: "\n") + "\n"
        let second = text(events[1])
        let firstTime = try #require(events[1].value(atPath: "createdDateTime")?.stringValue)
        let edits: [(name: String, original: String, from: String, to: String)] = [
            ("a time moved", array, firstTime, firstTime.replacingOccurrences(of: "20", with: "19", options: [], range: firstTime.startIndex..<firstTime.index(firstTime.startIndex, offsetBy: 2))),
            ("a comma gone", array, "}, " + second, "}  " + second),
            ("a newline gone", lines, "}\n" + second, "} " + second),
            ("a brace gone", array, second, " " + second.dropFirst()),
        ]
        for edit in edits {
            #expect(edit.original.contains(edit.from) && edit.from.utf8.count == edit.to.utf8.count, "\(edit.name)")
            let path = try RepositoryFiles.temporary("changed.json", edit.original)
            defer { RepositoryFiles.remove(path) }
            let replay = try #require(try await BlockingWork.shared.run { StreamedReplay.open(path, chunkSize: 11, runLength: 1000) })
            try edit.original.replacingOccurrences(of: edit.from, with: edit.to).write(toFile: path, atomically: false, encoding: .utf8)
            do {
                _ = try await BlockingWork.shared.run { try replay.evaluate(engine) }
                Issue.record("\(edit.name): read on")
            } catch let error as SignInEventError {
                #expect(error.description.contains("the file changed while it was read"), "\(edit.name): \(error)")
            }
        }
    }

    /// A file in no time order with more sign-ins than are sorted in memory is indexed in sorted
    /// stretches on disk and merged back: sign-ins sharing a time in different stretches, a
    /// repeated id, a page or JSON lines, and a scratch directory that is not there (the
    /// stretches are then held in memory); the alerts are the whole-file replay's each time.
    @Test(arguments: [(5, 3), (16, 1000), (1000, 7)])
    func aFileInNoOrderIsSortedInStretchesOnDiskWithTheSameAlerts(_ spillLimit: Int, _ batch: Int) async throws {
        var factory = Self.factory(seed: 37)
        var events = Self.history(&factory, everyHours: 5)
        guard case .object(var shared) = events[30] else { Issue.record("not an object"); return }
        for suffix in ["z", "a", "m", "b"] {
            shared["id"] = .string("shared-\(suffix)")
            events.append(.object(shared))
        }
        events.append(events[12])
        // In no order: each sign-in's place taken by a multiplicative hash of its position.
        events = events.enumerated().sorted { ($0.offset * 2_654_435_761) % 1_000_003 < ($1.offset * 2_654_435_761) % 1_000_003 }.map(\.element)
        let rules = RuleLoader.load(try RuleSource.read(paths: [RepositoryFiles.rules]))
        let engine = Engine(rules: rules)
        let signIns = try events.map(SignInEvents.event)
        let whole = engine.evaluate(EngineState(), events: signIns, now: signIns.map(\.eventTime).max()!)
        #expect(whole.alerts.count >= 3, "\(whole.alerts.map(\.rule.id))")
        let page = try RepositoryFiles.temporary("spilled-page.json", String(decoding: JSONValue.object(["value": .array(events)]).canonicalData(), as: UTF8.self))
        defer { RepositoryFiles.remove(page) }
        let lines = try RepositoryFiles.temporary("spilled-lines.jsonl", events.map { String(decoding: $0.canonicalData(), as: UTF8.self) }.joined(separator: "\n"))
        defer { RepositoryFiles.remove(lines) }
        for (path, directory) in [(page, nil), (lines, nil), (lines, "/nonexistent/tophhie-scratch")] {
            let replay = try #require(try await BlockingWork.shared.run {
                StreamedReplay.open(path, chunkSize: 11, runLength: 4, indexLimit: 8, spillLimit: spillLimit, scratchDirectory: directory)
            })
            #expect(replay.latest == signIns.map(\.eventTime).max())
            if spillLimit < events.count {
                guard case .spilled(let index) = replay.order else { Issue.record("\(path): not spilled"); continue }
                #expect(index.count == events.count)
                #expect(index.stretches.count == (events.count + spillLimit - 1) / spillLimit)
                #expect(index.stretches.allSatisfy { if case .held = $0 { directory != nil } else { directory == nil } }, "held only when no scratch file could be made")
            } else {
                guard case .entries(let entries) = replay.order else { Issue.record("\(path): under the limit, sorted in memory"); continue }
                #expect(entries.count == events.count)
            }
            let read = try await BlockingWork.shared.run { try replay.evaluateCounting(engine, batchSize: batch) }
            #expect(read.count == events.count)
            let streamed = read.outcome
            #expect(streamed.alerts.map(AlertJSON.line) == whole.alerts.map(AlertJSON.line), "\(path) \(directory ?? "")")
        }
    }

    /// A poll timeline read a poll at a time gives the alerts of reading it whole: polls cut
    /// across chunks, sign-ins repeated across polls, a burst published late; and a timeline
    /// with a wrong poll anywhere is left to the whole-file way, which names it.
    @Test(arguments: [7, 1 << 20])
    func aPollTimelineReadAPollAtATimeFiresWhatReadingItWholeFires(_ chunk: Int) async throws {
        var factory = Self.factory(seed: 41)
        let events = Self.history(&factory, everyHours: 6)
        // Polls every 12 h of what Graph held in the 24 h before; the burst arrives a day late.
        let burst = events.suffix(8)
        let normal = events.dropLast(8)
        let times = try normal.map { try SignInEvents.event($0).eventTime }
        var polls: [JSONValue] = []
        var at = times[0].addingTimeInterval(3600)
        while at < times[times.count - 1].addingTimeInterval(48 * 3600) {
            var shown = zip(normal, times).filter { $0.1 <= at && $0.1 > at.addingTimeInterval(-86_400) }.map(\.0)
            if at > Self.burstStart.addingTimeInterval(86_400) && at < Self.burstStart.addingTimeInterval(86_400 + 12 * 3600) { shown += burst }
            polls.append(.object(["at": .string(GraphTimestamp.graphText(at)), "events": .array(shown)]))
            at = at.addingTimeInterval(12 * 3600)
        }
        let text = String(decoding: JSONValue.object(["polls": .array(polls)]).canonicalData(), as: UTF8.self)
        let path = try RepositoryFiles.temporary("timeline-streamed.json", text)
        defer { RepositoryFiles.remove(path) }
        let rules = RuleLoader.load(try RuleSource.read(paths: [RepositoryFiles.rules]))
        let engine = Engine(rules: rules)
        let input = try ReplayInput(data: Data(text.utf8), keeping: engine.eventProjection)
        var state = EngineState()
        var whole: [String] = []
        for poll in input.polls {
            let outcome = engine.evaluate(state, events: poll.events, now: poll.at)
            state = outcome.state
            whole += outcome.alerts.map(AlertJSON.line)
        }
        #expect(whole.count >= 2, "\(whole)")
        let timeline = try #require(try await BlockingWork.shared.run { StreamedTimeline.open(path, keeping: engine.eventProjection, chunkSize: chunk) })
        #expect(timeline.polls.count == polls.count)
        #expect(timeline.eventCount == input.eventCount)
        let streamed = try await BlockingWork.shared.run { () throws -> [String] in
            var state = EngineState()
            var lines: [String] = []
            try timeline.forEachPoll { poll in
                let outcome = engine.evaluate(state, events: poll.events, now: poll.at)
                state = outcome.state
                lines += outcome.alerts.map(AlertJSON.line)
            }
            return lines
        }
        #expect(streamed == whole)

        // A wrong poll late in the file: nothing is replayed this way.
        guard case .object(var last) = polls[polls.count - 1] else { Issue.record("not an object"); return }
        last["at"] = .string("2024-01-01T00:00:00Z")
        let unordered = try RepositoryFiles.temporary("timeline-unordered.json", String(decoding: JSONValue.object(["polls": .array(polls.dropLast() + [.object(last)])]).canonicalData(), as: UTF8.self))
        defer { RepositoryFiles.remove(unordered) }
        #expect(try await BlockingWork.shared.run { StreamedTimeline.open(unordered, keeping: engine.eventProjection, chunkSize: chunk) } == nil)
    }

    /// `rules match` in one pass, half its batches on a second thread, must list what matching
    /// every sign-in of the file at once lists: records cut across chunks, batches of every size,
    /// an id that repeats (listed once), a page or JSON lines; and a file it cannot read, or a
    /// record broken late, must be left to the whole-file way.
    @Test(arguments: [(7, 1), (13, 3), (1 << 20, 2048)])
    func theOnePassMatchListsWhatMatchingTheWholeFileLists(_ chunk: Int, _ batch: Int) async throws {
        var factory = SignInFactory(seed: 29, account: .init(userID: "26be570a-ae82-4189-b4e2-a37c6808512d", userPrincipalName: "jane@contoso.com", displayName: "Jane"))
        let start = Date(timeIntervalSince1970: 1_788_000_000)
        var events: [JSONValue] = []
        for i in 0..<40 {
            events.append(factory.signIn(at: start.addingTimeInterval(Double(i) * 600), place: i % 5 == 0 ? .lagos : .london,
                                         device: i % 3 == 0 ? .unknownLinux : .laptop, app: i % 7 == 0 ? .legacyIMAP : .office,
                                         errorCode: i % 4 == 0 ? 50126 : 0))
        }
        events.append(events[8])
        let rules = RuleLoader.load(try RuleSource.read(paths: [RepositoryFiles.rules]))
        let engine = Engine(rules: rules)
        let matcher = DetectionMatches(rules: rules)
        let expected = matcher.matches(try events.map(SignInEvents.event))
        #expect(expected.count >= 10, "the pack must match some of the sign-ins for the comparison to mean anything")
        let page = try RepositoryFiles.temporary("match-page.json", String(decoding: JSONValue.object(["value": .array(events)]).canonicalData(), as: UTF8.self))
        defer { RepositoryFiles.remove(page) }
        let lines = try RepositoryFiles.temporary("match-lines.jsonl", events.map { String(decoding: $0.canonicalData(), as: UTF8.self) }.joined(separator: "\n"))
        defer { RepositoryFiles.remove(lines) }
        for path in [page, lines] {
            let found = try #require(try await BlockingWork.shared.run { StreamedMatch.run(path, engine: engine, matcher: matcher, chunkSize: chunk, batchSize: batch) })
            #expect(found.count == events.count)
            #expect(found.matches == expected)
        }
        let brokenLate = try RepositoryFiles.temporary("match-broken.json", String(decoding: JSONValue.object(["value": .array(events + [.object(["id": .string("x")])])]).canonicalData(), as: UTF8.self))
        defer { RepositoryFiles.remove(brokenLate) }
        #expect(try await BlockingWork.shared.run { StreamedMatch.run(brokenLate, engine: engine, matcher: matcher, chunkSize: chunk, batchSize: batch) } == nil)
        let timeline = try RepositoryFiles.temporary("match-timeline.json", #"{"polls":[{"at":"2024-05-01T10:00:00Z","events":[]}]}"#)
        defer { RepositoryFiles.remove(timeline) }
        #expect(try await BlockingWork.shared.run { StreamedMatch.run(timeline, engine: engine, matcher: matcher) } == nil)
    }

    /// What the streamed reader does not take goes the whole-file way, and says why it is wrong.
    @Test func filesTheStreamedReaderDoesNotTakeAreLeftToTheWholeFileWay() async throws {
        let timeline = try RepositoryFiles.temporary("timeline.json", #"{"polls":[{"at":"2024-05-01T10:00:00Z","events":[]}]}"#)
        defer { RepositoryFiles.remove(timeline) }
        #expect(try await BlockingWork.shared.run { StreamedReplay.open(timeline) } == nil)
        let broken = try RepositoryFiles.temporary("broken.json", #"{"value":[{"id":"x","createdDateTime":"2024-05-01T10:00:00Z"},{"id":"y"}]}"#)
        defer { RepositoryFiles.remove(broken) }
        #expect(try await BlockingWork.shared.run { StreamedReplay.open(broken) } == nil)
        let invalidUTF8 = try RepositoryFiles.temporary("utf8.json", "[]")
        defer { RepositoryFiles.remove(invalidUTF8) }
        try Data([0x5B, 0x7B, 0x22, 0x69, 0x64, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D, 0x5D]).write(to: URL(fileURLWithPath: invalidUTF8))
        #expect(try await BlockingWork.shared.run { StreamedReplay.open(invalidUTF8) } == nil)
        #expect(try await BlockingWork.shared.run { StreamedReplay.open("/nonexistent/replay.json") } == nil)
        let lines = try RepositoryFiles.temporary("lines.jsonl", "{\"id\":\"a\",\"createdDateTime\":\"2024-05-01T10:00:00Z\"}\n{\"id\":\"b\",\"createdDateTime\":\"2024-05-01T09:00:00Z\"}\n")
        defer { RepositoryFiles.remove(lines) }
        let read = try #require(try await BlockingWork.shared.run { StreamedReplay.open(lines) })
        guard case .runs(let runs) = read.order else { Issue.record("a file in time order is read as runs"); return }
        #expect(runs.map(\.count).reduce(0, +) == 2)
        #expect(runs == [ReplayRun(start: 0, end: 103, count: 2, earliest: GraphTimestamp.parse("2024-05-01T09:00:00Z")!, latest: GraphTimestamp.parse("2024-05-01T10:00:00Z")!)])
        let shuffled = try RepositoryFiles.temporary("shuffled.jsonl", "{\"id\":\"a\",\"createdDateTime\":\"2024-05-01T10:00:00Z\"}\n{\"id\":\"b\",\"createdDateTime\":\"2024-05-01T09:00:00Z\"}\n{\"id\":\"c\",\"createdDateTime\":\"2024-05-01T11:00:00Z\"}\n")
        defer { RepositoryFiles.remove(shuffled) }
        guard case .entries(let entries) = try #require(try await BlockingWork.shared.run { StreamedReplay.open(shuffled) }).order else { Issue.record("a file in no order keeps each sign-in"); return }
        #expect(entries.map(\.offset) == [52, 0, 104], "b (09:00), a (10:00), c (11:00)")
    }
}
