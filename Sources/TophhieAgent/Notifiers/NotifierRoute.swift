import TophhieRules

/// Which alerts a notifier takes: a minimum level and, optionally, only some rules.
public struct NotifierRoute: Sendable, Hashable {
    public var minimumLevel: AlertLevel
    /// When set, detections from other rules are skipped. Notices about the agent itself always
    /// pass this filter (they still need the level), so an operator never misses "sign-in needed".
    public var ruleIDs: Set<String>?

    public init(minimumLevel: AlertLevel = .informational, ruleIDs: Set<String>? = nil) {
        self.minimumLevel = minimumLevel
        self.ruleIDs = ruleIDs
    }

    /// Whether `alert` goes to this notifier.
    public func accepts(_ alert: Alert) -> Bool {
        guard alert.level >= minimumLevel else { return false }
        if alert.kind == .detection, let ruleIDs, !ruleIDs.contains(alert.rule.id) { return false }
        return true
    }
}

/// A notifier behind a route: alerts the route refuses are skipped, not failed.
///
/// The poll loop should check `route.accepts` before appending to the notifier's outbox; this
/// wrapper is for direct delivery (`notify test`, fan-out).
public struct RoutedNotifier: Notifier {
    public let inner: any Notifier
    public let route: NotifierRoute

    public init(_ inner: any Notifier, route: NotifierRoute) {
        self.inner = inner
        self.route = route
    }

    public var name: String { inner.name }

    public func deliver(_ alert: Alert) async throws {
        guard route.accepts(alert) else { return }
        try await inner.deliver(alert)
    }
}
