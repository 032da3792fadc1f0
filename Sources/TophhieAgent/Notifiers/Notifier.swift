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
