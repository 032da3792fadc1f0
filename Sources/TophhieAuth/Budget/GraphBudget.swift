import Foundation
import TophhieSystem

/// One Graph budget shared by every account an agent watches: each request on the reporting
/// API (a sign-in log page, `GET /me`) first awaits `spend(_:)`, and each 429 is told to
/// `throttled(_:retryAfter:)`. The decisions are `GraphBudgetPlan`'s; this only sleeps them.
///
/// Give one to each `TophhieAuth` (its `graphBudget` parameter); without one, a `TophhieAuth`
/// paces only the pages of its own re-read walks (`RequestPacing`), as a single account always has.
public actor GraphBudget {
    private let clock: any TophhieClock
    private var plan: GraphBudgetPlan

    /// - Parameter clock: where time comes from and how waits are slept; tests pass a `ManualClock`
    ///   or a `ParkingClock`.
    public init(clock: any TophhieClock, plan: GraphBudgetPlan = GraphBudgetPlan()) {
        self.clock = clock
        self.plan = plan
    }

    /// Waits until `key` may send a request, then counts it as sent.
    ///
    /// Checked again after every wait: while this one slept, other accounts of the app may have
    /// spent the room, or a 429 held the tenant. The check and the count are one step on the
    /// actor, so no two requests take the same room.
    /// - Parameter maxWait: the longest hold after a 429 this request may wait out (a poll's
    ///   stream wait limit); nil waits as long as the budget says. Waits for room in the rate
    ///   are always made: with many accounts of one tenant they add up to minutes, by design.
    /// - Returns: the seconds waited in all.
    /// - Throws: `GraphBudgetHeld`, spending nothing, when a 429 holds the tenant for longer
    ///   than `maxWait`; `CancellationError` when the task is cancelled while waiting.
    @discardableResult
    public func spend(_ key: GraphBudgetKey, maxWait: Double? = nil) async throws -> Double {
        try await reserve(key, maxWait: maxWait).waited
    }

    /// As `spend(_:maxWait:)`, also giving when the request was counted, for `answered(_:sentAt:)`.
    public func reserve(_ key: GraphBudgetKey, maxWait: Double? = nil) async throws -> (sentAt: Date, waited: Double) {
        var waited = 0.0
        while true {
            let wait = plan.wait(for: key, now: clock.now())
            if wait <= 0 { break }
            if let maxWait, case let held = plan.hold(of: key, now: clock.now()), held > maxWait { throw GraphBudgetHeld(seconds: held) }
            try await clock.sleep(seconds: wait)
            waited += wait
        }
        let now = clock.now()
        plan.record(key, at: now)
        return (now, waited)
    }

    /// Graph answered the request of `key` counted at `sentAt`: it counts from now on
    /// (`GraphBudgetPlan.answered`).
    public func answered(_ key: GraphBudgetKey, sentAt: Date) {
        plan.answered(key, sentAt: sentAt, at: clock.now())
    }

    /// Graph answered one of `key`'s requests with 429, asking for `retryAfter` seconds (nil when
    /// it gave none): that tenant is held, then slowed (`GraphBudgetPlan.throttled`).
    public func throttled(_ key: GraphBudgetKey, retryAfter: Double?) {
        plan.throttled(key, retryAfter: retryAfter, now: clock.now())
    }

    /// Seconds `key`'s next request would wait now, without spending anything.
    public func wait(for key: GraphBudgetKey) -> Double {
        plan.wait(for: key, now: clock.now())
    }

    /// Whether `key` runs at half rate now, after a 429.
    public func isSlowed(_ key: GraphBudgetKey) -> Bool {
        plan.isSlowed(key, now: clock.now())
    }

    /// The plan as it stands, for tests and `status`.
    public var currentPlan: GraphBudgetPlan { plan }
}
