import TophhieRules

/// Sends one alert somewhere: stdout, syslog, a webhook.
///
/// One entry point taking one `Sendable` value, in the shape of swift-log's `LogHandler`. A call
/// is one attempt; retries, ordering and durability belong to `OutboxDelivery`.
public protocol Notifier: Sendable {
    /// The configured name, used for the outbox file and in reports.
    var name: String { get }

    /// Delivers `alert` once.
    /// - Throws: `NotifierError`: `.transient` when trying again later may work, `.permanent`
    ///   when it will not.
    func deliver(_ alert: Alert) async throws
}

/// What is left of the cycle's delivery budget for the delivery under way, set by
/// `OutboxDelivery` around each attempt: a notifier's request waits at most the smaller of its
/// own timeout and this, so the budget is a deadline, not a count of attempts started in time.
public enum DeliveryBudget {
    /// Seconds left; nil outside a drain (`notify test`), where the notifier's own timeout holds.
    @TaskLocal public static var secondsLeft: Double?

    /// The smaller of `timeout` and what is left of the budget.
    public static func timeout(_ timeout: Double) -> Double {
        min(timeout, secondsLeft ?? timeout)
    }
}
