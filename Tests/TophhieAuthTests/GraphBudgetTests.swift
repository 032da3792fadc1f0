import Foundation
import Testing
import TophhieJSON
import TophhieSimulator
@testable import TophhieAuth

/// The Graph budget planner (issue 49): each app and tenant within 5 requests per 10 s, each
/// app within 122 per 10 s across tenants, a 429 holding and then slowing its tenant only.
@Suite struct GraphBudgetPlanTests {
    static let t0 = Date(timeIntervalSince1970: 1_788_000_000)
    static let contoso = GraphBudgetKey(clientID: "app-1", tenant: "contoso.onmicrosoft.com")
    static let fabrikam = GraphBudgetKey(clientID: "app-1", tenant: "fabrikam.onmicrosoft.com")
    static let otherApp = GraphBudgetKey(clientID: "app-2", tenant: "contoso.onmicrosoft.com")

    static func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    @Test func aTenantTakesFiveRequestsPerTenSeconds() {
        var plan = GraphBudgetPlan()
        for i in 0..<5 {
            #expect(plan.wait(for: Self.contoso, now: Self.at(Double(i))) == 0)
            plan.record(Self.contoso, at: Self.at(Double(i)))
        }
        // The sixth waits until the first leaves the window; the seventh until the second does.
        #expect(plan.wait(for: Self.contoso, now: Self.at(5)) == 5)
        #expect(plan.wait(for: Self.contoso, now: Self.at(10)) == 0)
        plan.record(Self.contoso, at: Self.at(10))
        #expect(plan.wait(for: Self.contoso, now: Self.at(10)) == 1)
        // Another tenant of the app, and another app in the same tenant, have their own room.
        #expect(plan.wait(for: Self.fabrikam, now: Self.at(5)) == 0)
        #expect(plan.wait(for: Self.otherApp, now: Self.at(5)) == 0)
    }

    /// Graph counts a request when it arrives: one slow to arrive (a new connection) and one
    /// sent ten seconds after it could meet in one window. Counted from its answer, the next
    /// request waits ten seconds after that.
    @Test func aRequestCountsFromItsAnswer() {
        var plan = GraphBudgetPlan()
        for _ in 0..<5 { plan.record(Self.contoso, at: Self.t0) }
        #expect(plan.wait(for: Self.contoso, now: Self.t0) == 10)
        plan.answered(Self.contoso, sentAt: Self.t0, at: Self.at(1.5))
        // The other four still count from t0: the oldest of the last five is one of them.
        #expect(plan.wait(for: Self.contoso, now: Self.t0) == 10)
        for _ in 0..<4 { plan.answered(Self.contoso, sentAt: Self.t0, at: Self.at(0.5)) }
        #expect(plan.wait(for: Self.contoso, now: Self.at(1.5)) == 9)
        // The app's count moved with them.
        #expect(plan.wait(for: Self.fabrikam, now: Self.at(1.5)) == 0)
        // An answer for a request the window no longer holds changes nothing.
        plan.answered(Self.contoso, sentAt: Self.at(-100), at: Self.at(30))
        #expect(plan.wait(for: Self.contoso, now: Self.at(1.5)) == 9)
    }

    @Test func anAppTakes122RequestsPerTenSecondsAcrossItsTenants() {
        var plan = GraphBudgetPlan()
        // 25 tenants of one app, 5 requests each at once: 125 in the same instant.
        let keys = (0..<25).map { GraphBudgetKey(clientID: "app-1", tenant: "tenant-\($0)") }
        var sent = 0
        for key in keys {
            for _ in 0..<5 where plan.wait(for: key, now: Self.t0) == 0 {
                plan.record(key, at: Self.t0)
                sent += 1
            }
        }
        #expect(sent == 122)
        // The 123rd, in a tenant with room of its own, waits for the app's window.
        #expect(plan.wait(for: keys[24], now: Self.at(3)) == 7)
        #expect(plan.wait(for: GraphBudgetKey(clientID: "app-1", tenant: "tenant-new"), now: Self.at(3)) == 7)
        // Another app is not held by it.
        #expect(plan.wait(for: GraphBudgetKey(clientID: "app-2", tenant: "tenant-0"), now: Self.at(3)) == 0)
    }

    @Test func a429HoldsItsTenantUntilRetryAfterThenHalvesItsRateForFiveMinutes() {
        var plan = GraphBudgetPlan()
        plan.record(Self.contoso, at: Self.t0)
        plan.record(Self.fabrikam, at: Self.t0)
        plan.throttled(Self.contoso, retryAfter: 30, now: Self.t0)
        #expect(plan.wait(for: Self.contoso, now: Self.at(1)) == 29)
        #expect(plan.hold(of: Self.contoso, now: Self.at(1)) == 29)
        #expect(plan.wait(for: Self.fabrikam, now: Self.at(1)) == 0, "the other tenant is not held")
        #expect(plan.hold(of: Self.fabrikam, now: Self.at(1)) == 0)
        #expect(plan.isSlowed(Self.contoso, now: Self.at(30)))
        #expect(!plan.isSlowed(Self.fabrikam, now: Self.at(30)))
        // After the hold: 5 requests per 20 s, not per 10 s.
        for i in 0..<5 {
            #expect(plan.wait(for: Self.contoso, now: Self.at(30 + Double(i))) == 0)
            plan.record(Self.contoso, at: Self.at(30 + Double(i)))
        }
        #expect(plan.wait(for: Self.contoso, now: Self.at(40)) == 10)
        for i in 0..<5 { plan.record(Self.fabrikam, at: Self.at(30 + Double(i))) }
        #expect(plan.wait(for: Self.fabrikam, now: Self.at(40)) == 0, "the other tenant keeps its full rate")
        // 300 s after the hold ended, the full rate is back.
        for i in 0..<5 { plan.record(Self.contoso, at: Self.at(330 + Double(i))) }
        #expect(!plan.isSlowed(Self.contoso, now: Self.at(330)))
        #expect(plan.wait(for: Self.contoso, now: Self.at(340)) == 0)
    }

    @Test func a429WithoutRetryAfterHoldsOneWindowAndALaterOneExtendsTheHold() {
        var plan = GraphBudgetPlan()
        plan.throttled(Self.contoso, retryAfter: nil, now: Self.t0)
        #expect(plan.wait(for: Self.contoso, now: Self.t0) == 10)
        plan.throttled(Self.contoso, retryAfter: 60, now: Self.at(5))
        #expect(plan.wait(for: Self.contoso, now: Self.at(5)) == 60)
        // A shorter one later does not cut the hold short.
        plan.throttled(Self.contoso, retryAfter: 1, now: Self.at(6))
        #expect(plan.wait(for: Self.contoso, now: Self.at(6)) == 59)
        #expect(plan.isSlowed(Self.contoso, now: Self.at(65 + 299)))
        #expect(!plan.isSlowed(Self.contoso, now: Self.at(65 + 300)))
    }

    @Test func keysAreCaseInsensitive() {
        #expect(GraphBudgetKey(clientID: "APP-1", tenant: "Contoso.onmicrosoft.com") == Self.contoso)
    }
}

/// `GraphBudget` sleeps what the plan says, on a test clock.
@Suite(.timeLimit(.minutes(20))) struct GraphBudgetShellTests {
    static let key = GraphBudgetPlanTests.contoso

    @Test func spendingWaitsForRoomAndCountsEachRequest() async throws {
        let clock = ManualClock(GraphBudgetPlanTests.t0)
        let budget = GraphBudget(clock: clock)
        for _ in 0..<5 { #expect(try await budget.spend(Self.key) == 0) }
        #expect(try await budget.spend(Self.key) == 10)
        #expect(clock.sleeps == [10])
        #expect(clock.now() == GraphBudgetPlanTests.at(10))
    }

    @Test func aWaitingRequestSeesA429ThatArrivesWhileItWaits() async throws {
        let clock = ParkingClock(GraphBudgetPlanTests.t0)
        let budget = GraphBudget(clock: clock)
        for _ in 0..<5 { try await budget.spend(Self.key) }
        let sixth = Task { try await budget.spend(Self.key) }
        await clock.parked(total: 1)
        // While it waits its 10 s, Graph throttles the tenant for 30 s.
        await budget.throttled(Self.key, retryAfter: 30)
        clock.advance(by: 10)
        await clock.parked(total: 2)
        #expect(clock.now() == GraphBudgetPlanTests.at(10))
        clock.advance(by: 20)
        #expect(try await sixth.value == 30)
        #expect(await budget.isSlowed(Self.key))
        #expect(!(await budget.isSlowed(GraphBudgetPlanTests.fabrikam)))
    }

    /// A request that may wait only so long (a poll's stream) is refused at once when a 429
    /// holds its tenant for longer, but waits out the rate however long that takes.
    @Test func aHoldLongerThanTheCallerMayWaitIsRefusedAtOnce() async throws {
        let clock = ManualClock(GraphBudgetPlanTests.t0)
        let budget = GraphBudget(clock: clock)
        for _ in 0..<5 { try await budget.spend(Self.key, maxWait: 1) }
        #expect(try await budget.spend(Self.key, maxWait: 1) == 10, "the rate's wait is made")
        await budget.throttled(Self.key, retryAfter: 600)
        await #expect(throws: GraphBudgetHeld(seconds: 600)) { try await budget.spend(Self.key, maxWait: 30) }
        #expect(clock.sleeps == [10])
        #expect(await budget.wait(for: Self.key) == 600)
        #expect(await budget.currentPlan.apps["app-1"]?.count == 6, "the refused request spent nothing")
        #expect(try await budget.spend(Self.key) == 600)
    }

    @Test func aCancelledWaitThrowsAndSpendsNothing() async throws {
        let clock = ParkingClock(GraphBudgetPlanTests.t0)
        let budget = GraphBudget(clock: clock)
        for _ in 0..<5 { try await budget.spend(Self.key) }
        let waiting = Task { try await budget.spend(Self.key) }
        await clock.parked(total: 1)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(await budget.currentPlan.tenants[Self.key]?.sent.count == 5)
    }
}

/// Whether accounts fit their interval, and the shortest interval that fits.
@Suite struct GraphBudgetFitTests {
    static let contoso = GraphBudgetPlanTests.contoso
    static let fabrikam = GraphBudgetPlanTests.fabrikam

    /// The figure: 30 accounts of one tenant at 4 requests a poll every 5 minutes.
    @Test func thirtyAccountsOfOneTenantFitFiveMinutes() {
        let fit = GraphBudgetFit(accounts: [Self.contoso: 30], requestsPerPoll: 4, interval: 300)
        #expect(fit.fits)
        #expect(fit.statusLine(for: Self.contoso) == "120 of 150 per 5m for contoso.onmicrosoft.com")
        #expect(fit.tenants == [.init(key: Self.contoso, accounts: 30, requestsPerCycle: 120, allowedPerCycle: 150)])
        #expect(fit.apps == [.init(clientID: "app-1", requestsPerCycle: 120, allowedPerCycle: 3660)])
        #expect(fit.shortestInterval == 240)
    }

    @Test func fortyAccountsOfOneTenantNeedSixMinutes() {
        let fit = GraphBudgetFit(accounts: [Self.contoso: 40], requestsPerPoll: 4, interval: 300)
        #expect(!fit.fits)
        #expect(fit.statusLine(for: Self.contoso) == "160 of 150 per 5m for contoso.onmicrosoft.com")
        // 160 requests need 320 s, rounded up to the minute.
        #expect(fit.shortestInterval == 360)
        #expect(GraphBudgetFit(accounts: [Self.contoso: 40], requestsPerPoll: 4, interval: 360).fits)
    }

    /// Many tenants each within their 5 per 10 s can still overrun the app's 122.
    @Test func manyTenantsOfOneAppAreBoundByTheAppsBudget() {
        var accounts: [GraphBudgetKey: Int] = [:]
        for i in 0..<40 { accounts[GraphBudgetKey(clientID: "app-1", tenant: "tenant-\(i)")] = 30 }
        let fit = GraphBudgetFit(accounts: accounts, requestsPerPoll: 4, interval: 300)
        #expect(fit.tenants.allSatisfy { $0.fits })
        #expect(fit.apps == [.init(clientID: "app-1", requestsPerCycle: 4800, allowedPerCycle: 3660)])
        #expect(!fit.fits)
        // 4,800 requests at 122 per 10 s: 394 s, so 7 minutes.
        #expect(fit.shortestInterval == 420)
        #expect(GraphBudgetFit(accounts: accounts, requestsPerPoll: 4, interval: 420).fits)
        #expect(!GraphBudgetFit(accounts: accounts, requestsPerPoll: 4, interval: 360).fits)
    }

    @Test func accountsOfOneTenantMayReadDifferentlyManyStreams() {
        let fit = GraphBudgetFit(requestsPerPoll: [Self.contoso: [4, 4, 2], Self.fabrikam: [2]], interval: 60)
        #expect(fit.tenants.map(\.requestsPerCycle) == [10, 2])
        #expect(fit.tenants.map(\.allowedPerCycle) == [30, 30])
        #expect(fit.statusLine(for: Self.fabrikam) == "2 of 30 per 1m for fabrikam.onmicrosoft.com")
        #expect(fit.statusLine(for: GraphBudgetPlanTests.otherApp) == nil)
        #expect(fit.shortestInterval == 60, "a minute at least")
    }

    @Test(arguments: [(300.0, "5m"), (90, "1m30s"), (3600, "1h"), (5400, "1h30m"), (45, "45s")])
    func intervalsAreWrittenShort(seconds: Double, text: String) {
        #expect(GraphBudgetFit.durationText(seconds) == text)
    }
}

/// A `TophhieAuth` given a shared budget spends it on every sign-in page and `GET /me`, and
/// tells it of Graph's 429s.
@Suite(.timeLimit(.minutes(20))) struct GraphBudgetOverHTTPTests {
    func auth(_ harness: TenantHarness, _ budget: GraphBudget?) -> TophhieAuth {
        TophhieAuth(configuration: harness.configuration, transport: harness.transport, clock: harness.clock, jitter: { 0.5 }, graphBudget: budget)
    }

    func key(_ harness: TenantHarness) -> GraphBudgetKey {
        GraphBudgetKey(clientID: harness.configuration.clientID, tenant: harness.configuration.tenant)
    }

    @Test func aFetchAndAProfileReadWaitForRoomInTheSharedBudget() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            await harness.tenant.addSignIns(SignInHistoryOverHTTPTests.history(harness, count: 3))
            let budget = GraphBudget(clock: harness.clock)
            // Other accounts of the same app and tenant have just spent the window.
            for _ in 0..<5 { try await budget.spend(key(harness)) }
            let before = harness.clock.sleeps.count
            let graphBefore = await harness.tenant.requests.filter { !$0.path.contains("/oauth2/") }.count
            _ = try await auth(harness, budget).fetchSignIns(since: harness.clock.now().addingTimeInterval(-86_400))
            _ = try await auth(harness, budget).getUserProfile()
            // The first waited for the window to pass; the rest found room after it.
            #expect(Array(harness.clock.sleeps.dropFirst(before)) == [10])
            let graphRequests = await harness.tenant.requests.filter { !$0.path.contains("/oauth2/") }.count - graphBefore
            #expect(graphRequests >= 2, "a sign-in page and GET /me at least")
            // Each Graph request this account sent is counted, at the time it went.
            let sent = await budget.currentPlan.apps[key(harness).clientID] ?? []
            #expect(sent.count == 5 + graphRequests)
            #expect(sent.last == harness.clock.now())
        }
    }

    @Test func a429SlowsItsTenantInTheSharedBudgetAndNoOther() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            await harness.tenant.addSignIns(SignInHistoryOverHTTPTests.history(harness, count: 3))
            await harness.tenant.addFault(FaultRule(pathPrefix: "/v1.0/auditLogs/signIns", kind: .throttle, count: 1, retryAfter: "7"))
            let budget = GraphBudget(clock: harness.clock)
            let other = GraphBudgetKey(clientID: harness.configuration.clientID, tenant: "fabrikam.onmicrosoft.com")
            let before = harness.clock.sleeps.count
            let fetch = try await auth(harness, budget).fetchSignIns(since: harness.clock.now().addingTimeInterval(-86_400))
            #expect(fetch.events.count == 3)
            // The retry waited Graph's 7 s once (the requester's wait); the budget added none.
            #expect(Array(harness.clock.sleeps.dropFirst(before)) == [7])
            #expect(await budget.isSlowed(key(harness)))
            #expect(!(await budget.isSlowed(other)))
            #expect(await budget.currentPlan.tenants[key(harness)]?.heldUntil != nil)
        }
    }

    /// A 429 whose `Retry-After` is longer than the poll's stream wait fails that stream, and
    /// the other stream of the same tenant is not sent to wait it out either: both are read
    /// again next poll, as without a budget, and the poll goes on at once.
    @Test func aLongHoldFailsTheStreamsOfItsTenantWithoutWaiting() async throws {
        try await TenantHarness.with { base in
            var harness = base
            harness.api = .beta
            try await harness.signIn()
            await harness.tenant.addFault(FaultRule(pathPrefix: "/beta/auditLogs/signIns", kind: .throttle, count: 1, retryAfter: "600"))
            let budget = GraphBudget(clock: harness.clock)
            let before = harness.clock.sleeps.count
            let since = harness.clock.now().addingTimeInterval(-86_400)
            let fetch = try await auth(harness, budget).fetchSignIns(SignInLogAPI.beta.streams.map { SignInRead(stream: $0, notBefore: since) }, api: .beta, streamWaitLimit: 30)
            #expect(harness.clock.sleeps.count == before, "no wait")
            #expect(fetch.streamFailures.map(\.stream) == SignInLogAPI.beta.streams)
            #expect(fetch.streamFailures.allSatisfy { $0.retryAfter == harness.clock.now().addingTimeInterval(600) })
            #expect(await harness.signInRequests().map(\.status) == [429], "the second stream was not sent")
        }
    }

    /// Without a budget, a first poll's pages are not held back, as before.
    @Test func withoutABudgetNothingWaits() async throws {
        try await TenantHarness.with { harness in
            try await harness.signIn()
            await harness.tenant.addSignIns(SignInHistoryOverHTTPTests.history(harness, count: 3))
            let before = harness.clock.sleeps.count
            for _ in 0..<7 { _ = try await auth(harness, nil).fetchSignIns(since: harness.clock.now().addingTimeInterval(-86_400)) }
            #expect(harness.clock.sleeps.count == before)
        }
    }
}
