import Foundation
import Testing
import TophhieAuth
import TophhieJSON
@testable import TophhieAgent

/// By when a late sign-in anywhere in the lookback is found (issue 44, item 7): the planner's
/// pure forecast with exact figures, and a walk of the documented tenant profile that holds it
/// within two hours while the sweep to the retention floor goes on.
@Suite struct RereadForecastTests {
    static let noon = GraphTimestamp.parse("2026-12-06T12:00:00Z")!
    /// The defaults: 30 days of retention, a 24 h lookback, polls every 5 minutes and 30 s of jitter.
    static let planner = PollPlanner(retentionDays: 30, lookback: 86_400, api: .beta, pollSpacing: 330)
    static func minute(_ date: Date) -> String { String(GraphTimestamp.filterText(date).prefix(16)) }

    @Test func aWalkUnderWayIsFinishedAndAWholeNextOneReadBeforeTheForecast() {
        let walk = RereadCursor(upper: Self.noon.addingTimeInterval(-4 * 3600), floor: Self.noon.addingTimeInterval(-25 * 3600),
                                top: Self.noon.addingTimeInterval(-1800), pages: 4, lastWalkPages: 26)
        let forecast = Self.planner.forecast(walk, lastPoll: Self.noon)
        // 26 pages in at most 10 polls an hour: 3 a poll; 22 left is 8 polls, the next walk 9.
        #expect(forecast.pagesPerPoll == 3)
        #expect(forecast.foundBy == Self.noon.addingTimeInterval(17 * 330))
        #expect(forecast.sentence(time: Self.minute) == "a late sign-in anywhere in the last 24 h is found by 2026-12-06T13:33 (walk at page 4 of 26, 3 pages a poll)")
    }

    @Test func aNewWalkNextPollIsTheOnlyWalkToWaitFor() {
        let forecast = Self.planner.forecast(RereadCursor(lastWalkPages: 3), lastPoll: Self.noon)
        #expect(forecast.foundBy == Self.noon.addingTimeInterval(3 * 330))
        #expect(forecast.sentence(time: Self.minute) == "a late sign-in anywhere in the last 24 h is found by 2026-12-06T12:16 (a new walk of 3 pages starts next poll, 1 page a poll)")
    }

    @Test func theFirstWalkIsScaledFromWhatItHasReadAndUnknownBeforeItsFirstPage() {
        let top = Self.noon.addingTimeInterval(-1800)
        // Two pages covered 2 h of a 24.5 h walk: about 25 pages, 3 a poll.
        let walk = RereadCursor(upper: top.addingTimeInterval(-2 * 3600), floor: top.addingTimeInterval(-24.5 * 3600), top: top, pages: 2)
        #expect(Self.planner.walkPages(walk) == 25)
        #expect(Self.planner.forecast(walk, lastPoll: Self.noon).foundBy == Self.noon.addingTimeInterval(Double(8 + 9) * 330))
        let unknown = Self.planner.forecast(RereadCursor(), lastPoll: Self.noon)
        #expect(unknown.foundBy == nil)
        #expect(unknown.sentence(time: Self.minute) == "a late sign-in anywhere in the last 24 h: not known yet (the walk's length is known after its first page)")
    }

    @Test func pagesAPollAreEnoughForAWalkAnHourAndNoMoreThanTheCap() {
        #expect(Self.planner.pagesPerPoll(walkPages: nil) == 1)
        #expect(Self.planner.pagesPerPoll(walkPages: 10) == 1)
        #expect(Self.planner.pagesPerPoll(walkPages: 11) == 2)
        #expect(Self.planner.pagesPerPoll(walkPages: 26) == 3)
        #expect(Self.planner.pagesPerPoll(walkPages: 5_000) == PollPlanner.maxPagesPerPoll)
    }

    @Test func requestsArePacedToFiveInTenSeconds() {
        var pacing = RequestPacing()
        for second in 0..<5 {
            #expect(pacing.wait(now: Self.noon.addingTimeInterval(Double(second))) == 0)
            pacing.record(Self.noon.addingTimeInterval(Double(second)))
        }
        #expect(pacing.wait(now: Self.noon.addingTimeInterval(4.5)) == 5.5)
        pacing.record(Self.noon.addingTimeInterval(10))
        #expect(pacing.wait(now: Self.noon.addingTimeInterval(10)) == 1)
        #expect(pacing.wait(now: Self.noon.addingTimeInterval(12)) == 0)
    }

    /// The documented profile (benchmarks/poll-budget.sh): 2,500 interactive and 25,000
    /// non-interactive sign-ins a day, spread evenly; Graph pages of 1,000. The planner the
    /// default configuration makes; three days of polls as far apart as it allows for (interval,
    /// all its jitter and the poll's own time: 360 s); from the second day on, at every poll a late
    /// sign-in is published at six places in the lookback of each stream. Each is read within
    /// 2 h and by the forecast made when it was published, while the sweeps go on.
    @Test func theDocumentedProfileFindsALateSignInAnywhereInTheLookbackWithinTwoHours() {
        let planner = AgentSetup.planner(AgentConfiguration(stateDirectory: URL(fileURLWithPath: "/nonexistent")))
        #expect(planner.pollSpacing == 360 && planner.lookback == 86_400 && planner.retention == 30 * 86_400 && planner.api == .beta)
        let perSecond: [SignInStream: Double] = [.interactive: 2_500 / 86_400, .nonInteractive: 25_000 / 86_400]
        var now = Self.noon
        var state = AgentState()
        let first = planner.plan(state, now: now)
        planner.advance(&state, plan: first, results: [], now: now)
        state.learned = true
        state.lastSuccessfulPoll = now
        struct Probe { var stream: SignInStream; var at: Date; var published: Date; var forecast: Date }
        var pending: [Probe] = []
        var slowest: TimeInterval = 0
        var found = 0
        var sweepPages: [SignInStream: Int] = [:]
        for poll in 1...(3 * 240) {
            now = now.addingTimeInterval(planner.pollSpacing)
            if poll > 240, let last = state.lastSuccessfulPoll {
                for stream in [SignInStream.interactive, .nonInteractive] {
                    let foundBy = planner.forecast(state.rereads[stream], lastPoll: last).foundBy
                    #expect(foundBy != nil)
                    #expect((foundBy ?? .distantFuture) <= now.addingTimeInterval(2 * 3600))
                    for back: Double in [1_860, 3_600, 21_600, 43_200, 82_800, 86_340] {
                        pending.append(Probe(stream: stream, at: now.addingTimeInterval(-back), published: now, forecast: foundBy ?? now))
                    }
                }
            }
            let plan = planner.plan(state, now: now)
            var results: [SignInReadResult] = []
            for read in plan.reads {
                let upper = read.notAfter ?? now
                let density = perSecond[read.stream]!
                let count = max(0, upper.timeIntervalSince(read.notBefore)) * density
                let limit = Double(read.pageLimit ?? Int.max)
                let complete = count <= limit * 1000
                let pages = complete ? max(1, Int((count / 1000).rounded(.up))) : Int(limit)
                let oldest = complete ? read.notBefore : upper.addingTimeInterval(-limit * 1000 / density)
                results.append(SignInReadResult(read: read, pages: pages, oldest: count > 0 ? oldest : nil, complete: complete))
                if plan.sweepReads.contains(read) { sweepPages[read.stream, default: 0] += pages }
                pending.removeAll { probe in
                    guard probe.stream == read.stream, probe.at <= upper, probe.at >= oldest else { return false }
                    slowest = max(slowest, now.timeIntervalSince(probe.published))
                    #expect(now <= probe.forecast, "found after its forecast")
                    found += 1
                    return true
                }
            }
            planner.advance(&state, plan: plan, results: results, now: now)
            state.lastSuccessfulPoll = now
        }
        let lastPublished = now.addingTimeInterval(-2 * 3600)
        #expect(pending.filter { $0.published < lastPublished }.isEmpty, "every late sign-in published more than 2 h before the end was found")
        #expect(found > 3_000)
        #expect(slowest <= 2 * 3600)
        #expect(slowest > 1800, "the bound is met by a walk that takes a while, not by reading everything every poll")
        // The sweeps went on beside the walks from the day after the first poll, a page a poll:
        // the interactive one (2,500 a day, 29 days) is whole, the non-interactive one under way.
        #expect((sweepPages[.interactive] ?? 0) >= 70)
        #expect((sweepPages[.nonInteractive] ?? 0) >= 2 * 240 - 1)
    }
}
