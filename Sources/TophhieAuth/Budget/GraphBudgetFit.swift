import Foundation

/// Whether the accounts an agent watches fit Graph's reporting budget at their poll interval:
/// the arithmetic behind refusing a configuration at load and behind `status`. Pure.
///
/// Per app and tenant, the requests of one cycle must be at most 5 per 10 s of the interval
/// (150 in 5 minutes); per app across its tenants, at most 122 per 10 s (3,660 in 5 minutes).
/// The requests are the steady state (a poll with nothing new: its sign-in requests, plus
/// `GET /me` where it is read); a first poll's history and a sweep's pages go beyond it and wait
/// for the room of later cycles.
public struct GraphBudgetFit: Sendable, Equatable {
    /// One app and tenant's requests in a cycle against what Graph allows in it.
    public struct Tenant: Sendable, Equatable {
        /// The app and tenant.
        public var key: GraphBudgetKey
        /// How many accounts poll with it.
        public var accounts: Int
        /// Their steady-state requests in one interval.
        public var requestsPerCycle: Int
        /// What Graph allows in one interval: 5 per 10 s.
        public var allowedPerCycle: Int
        /// Whether the requests are within what is allowed.
        public var fits: Bool { requestsPerCycle <= allowedPerCycle }
    }

    /// One app's requests in a cycle, over all its tenants, against what Graph allows it.
    public struct App: Sendable, Equatable {
        /// The app registration's client id, lowercased.
        public var clientID: String
        /// Its tenants' steady-state requests in one interval, together.
        public var requestsPerCycle: Int
        /// What Graph allows it in one interval: 122 per 10 s.
        public var allowedPerCycle: Int
        /// Whether the requests are within what is allowed.
        public var fits: Bool { requestsPerCycle <= allowedPerCycle }
    }

    /// The poll interval, in seconds.
    public var interval: Double
    /// Sorted by app, then tenant.
    public var tenants: [Tenant]
    /// Sorted by client id.
    public var apps: [App]

    /// - Parameters:
    ///   - accounts: how many accounts poll with each app and tenant.
    ///   - requestsPerPoll: one account's steady-state requests a poll (4 for Graph beta's two
    ///     streams with `GET /me`, say).
    ///   - interval: seconds between polls.
    public init(accounts: [GraphBudgetKey: Int], requestsPerPoll: Int, interval: Double) {
        self.init(requestsPerPoll: accounts.mapValues { Array(repeating: requestsPerPoll, count: $0) }, interval: interval)
    }

    /// - Parameters:
    ///   - requestsPerPoll: for each app and tenant, each of its accounts' steady-state requests
    ///     a poll (an account read from v1.0 has one stream, from beta two).
    ///   - interval: seconds between polls.
    public init(requestsPerPoll: [GraphBudgetKey: [Int]], interval: Double) {
        self.interval = interval
        let tenants = requestsPerPoll.keys.sorted().map { key in
            let each = requestsPerPoll[key] ?? []
            return Tenant(key: key, accounts: each.count, requestsPerCycle: each.reduce(0, +),
                          allowedPerCycle: Self.allowed(GraphBudgetPlan.tenantLimit, in: interval))
        }
        self.tenants = tenants
        apps = Set(tenants.map(\.key.clientID)).sorted().map { clientID in
            App(clientID: clientID, requestsPerCycle: tenants.filter { $0.key.clientID == clientID }.reduce(0) { $0 + $1.requestsPerCycle },
                allowedPerCycle: Self.allowed(GraphBudgetPlan.appLimit, in: interval))
        }
    }

    /// Whether every tenant and every app fits.
    public var fits: Bool { tenants.allSatisfy(\.fits) && apps.allSatisfy(\.fits) }

    /// The shortest interval, in whole minutes (as seconds), at which every tenant and app fits;
    /// one minute at least.
    ///
    /// A tenant of `r` requests a cycle needs `r × 10 / 5` seconds, an app `r × 10 / 122`.
    public var shortestInterval: Double {
        var seconds = 60
        for tenant in tenants { seconds = max(seconds, Self.secondsNeeded(tenant.requestsPerCycle, limit: GraphBudgetPlan.tenantLimit)) }
        for app in apps { seconds = max(seconds, Self.secondsNeeded(app.requestsPerCycle, limit: GraphBudgetPlan.appLimit)) }
        return Double((seconds + 59) / 60 * 60)
    }

    /// `120 of 150 per 5m for contoso.onmicrosoft.com`, or nil for a key it does not hold.
    public func statusLine(for key: GraphBudgetKey) -> String? {
        guard let tenant = tenants.first(where: { $0.key == key }) else { return nil }
        return "\(tenant.requestsPerCycle) of \(tenant.allowedPerCycle) per \(Self.durationText(interval)) for \(tenant.key.tenant)"
    }

    /// `3660 per 5m`: requests allowed at `limit` a window over `interval` (whole windows and the
    /// part of one, rounded down: a request more would break some window).
    static func allowed(_ limit: Int, in interval: Double) -> Int {
        Int((Double(limit) * interval / GraphBudgetPlan.window).rounded(.down))
    }

    /// The whole seconds in which `requests` fit at `limit` a window.
    static func secondsNeeded(_ requests: Int, limit: Int) -> Int {
        let window = Int(GraphBudgetPlan.window)
        return (requests * window + limit - 1) / limit
    }

    /// `5m`, `1h30m`, `90s`.
    static func durationText(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let hours = total / 3600, minutes = total % 3600 / 60, rest = total % 60
        var text = ""
        if hours > 0 { text += "\(hours)h" }
        if minutes > 0 { text += "\(minutes)m" }
        if rest > 0 || text.isEmpty { text += "\(rest)s" }
        return text
    }
}
