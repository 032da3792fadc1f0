import Foundation

/// Graph's reporting-API budget across many accounts, as a pure state machine: each app and
/// tenant at most 5 requests per 10 s, each app across its tenants at most 122 per 10 s
/// (`../shared/reference/graph-api.md` §3.3), and a tenant that was throttled held, then slowed.
///
/// No clock and no I/O: every call takes `now`. `GraphBudget` is the shell that sleeps what
/// `wait(for:now:)` says and records what it sends.
public struct GraphBudgetPlan: Sendable, Equatable {
    /// Requests per app and tenant in a window.
    public static let tenantLimit = 5
    /// Requests per app, across its tenants, in a window.
    public static let appLimit = 122
    /// Graph's window, in seconds.
    public static let window: TimeInterval = 10
    /// How long a tenant runs at half its rate after a 429's `Retry-After` has passed: 5 minutes,
    /// the default poll interval. Graph counts requests we cannot see (another copy of the agent
    /// or another program with the same app registration in that tenant), so the budget that
    /// was too much once will be again at once; half the rate for one whole cycle gives that
    /// other traffic room, and the tenant is back at full rate the cycle after. A second 429
    /// while slowed starts the span again from its own `Retry-After`.
    public static let slowSpan: TimeInterval = 300
    /// The hold for a 429 without a usable `Retry-After`: one window, after which Graph's count
    /// has moved on.
    public static let defaultHold: TimeInterval = window

    /// What the plan knows of one app and tenant.
    struct TenantState: Sendable, Equatable {
        /// The last `tenantLimit` requests, oldest first.
        var sent: [Date] = []
        /// No request before this (a 429's `Retry-After`).
        var heldUntil: Date?
        /// Half rate until this.
        var slowUntil: Date?
    }

    private(set) var tenants: [GraphBudgetKey: TenantState] = [:]
    /// Per client id: the last `appLimit` requests to any of its tenants, oldest first.
    private(set) var apps: [String: [Date]] = [:]

    public init() {}

    /// Seconds to wait at `now` before sending `key`'s next request; 0 when it may go now.
    ///
    /// Each bound is a time the request must not be before, so the longest wait meets them all.
    public func wait(for key: GraphBudgetKey, now: Date) -> Double {
        var earliest = now
        let state = tenants[key] ?? TenantState()
        if let held = state.heldUntil { earliest = max(earliest, held) }
        // Half the rate: the same 5 requests over twice the window.
        let slowed = state.slowUntil.map { now < $0 } ?? false
        let tenantWindow = slowed ? 2 * Self.window : Self.window
        if state.sent.count >= Self.tenantLimit {
            earliest = max(earliest, state.sent[state.sent.count - Self.tenantLimit].addingTimeInterval(tenantWindow))
        }
        if let sent = apps[key.clientID], sent.count >= Self.appLimit {
            earliest = max(earliest, sent[sent.count - Self.appLimit].addingTimeInterval(Self.window))
        }
        return max(0, earliest.timeIntervalSince(now))
    }

    /// `key`'s request went out at `time` (its throttled retries too: Graph counts each).
    public mutating func record(_ key: GraphBudgetKey, at time: Date) {
        Self.append(time, to: &tenants[key, default: TenantState()].sent, keeping: Self.tenantLimit)
        Self.append(time, to: &apps[key.clientID, default: []], keeping: Self.appLimit)
    }

    /// Graph answered `key`'s request counted at `sentAt`, at `time`: from now on it counts from
    /// its answer. Graph counts a request when it arrives, which may be after a request sent
    /// later arrived (a new connection is slow); counting each from its answer, the next one
    /// after it in the window can never reach Graph within ten seconds of it.
    public mutating func answered(_ key: GraphBudgetKey, sentAt: Date, at time: Date) {
        guard time > sentAt else { return }
        Self.move(sentAt, to: time, in: &tenants[key, default: TenantState()].sent)
        Self.move(sentAt, to: time, in: &apps[key.clientID, default: []])
    }

    /// Replaces one `from` in sorted `times` with `to`, keeping them sorted; nothing when a
    /// newer request pushed it out.
    private static func move(_ from: Date, to: Date, in times: inout [Date]) {
        guard let index = times.firstIndex(of: from) else { return }
        times.remove(at: index)
        let insertion = times.lastIndex(where: { $0 <= to }).map { $0 + 1 } ?? 0
        times.insert(to, at: insertion)
    }

    /// Graph answered one of `key`'s requests with 429 at `now`: that tenant is held until
    /// `retryAfter` seconds have passed (`defaultHold` when Graph gave none), then runs at half
    /// rate for `slowSpan`. The app's other tenants are not slowed: Graph's per-tenant count is
    /// what was exceeded, and they have their own.
    public mutating func throttled(_ key: GraphBudgetKey, retryAfter: Double?, now: Date) {
        let hold = retryAfter.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? Self.defaultHold
        let until = now.addingTimeInterval(hold)
        var state = tenants[key] ?? TenantState()
        state.heldUntil = max(state.heldUntil ?? until, until)
        state.slowUntil = state.heldUntil!.addingTimeInterval(Self.slowSpan)
        tenants[key] = state
    }

    /// Seconds left at `now` of the hold a 429 put on `key`; 0 when none.
    public func hold(of key: GraphBudgetKey, now: Date) -> Double {
        max(0, tenants[key]?.heldUntil?.timeIntervalSince(now) ?? 0)
    }

    /// Whether `key` runs at half rate at `now`, after a 429.
    public func isSlowed(_ key: GraphBudgetKey, now: Date) -> Bool {
        tenants[key]?.slowUntil.map { now < $0 } ?? false
    }

    /// Keeps `times` sorted (a request recorded late, after a wait across the actor, may be older
    /// than the last) and no longer than `limit`.
    private static func append(_ time: Date, to times: inout [Date], keeping limit: Int) {
        let index = times.lastIndex(where: { $0 <= time }).map { $0 + 1 } ?? 0
        times.insert(time, at: index)
        if times.count > limit { times.removeFirst(times.count - limit) }
    }
}
