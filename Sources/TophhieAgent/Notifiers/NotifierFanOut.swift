import TophhieRules

/// The outcome of one notifier's attempt at one alert.
public struct NotifierResult: Sendable, Hashable {
    public var notifier: String
    /// `nil` when the alert was delivered.
    public var error: NotifierError?

    public var delivered: Bool { error == nil }

    public init(notifier: String, error: NotifierError?) {
        self.notifier = notifier
        self.error = error
    }
}

/// Delivers one alert to several notifiers at once and reports each one's outcome.
///
/// Used by `notify test` and for notices; the poll loop delivers through one outbox per notifier.
public struct NotifierFanOut: Notifier {
    public let name: String
    public let notifiers: [any Notifier]

    public init(name: String = "fan-out", _ notifiers: [any Notifier]) {
        self.name = name
        self.notifiers = notifiers
    }

    /// Delivers to every notifier concurrently.
    /// - Returns: one result per notifier, in the order given.
    public func deliverAll(_ alert: Alert) async -> [NotifierResult] {
        await withTaskGroup(of: (Int, NotifierResult).self) { group in
            for (index, notifier) in notifiers.enumerated() {
                group.addTask {
                    do {
                        try await notifier.deliver(alert)
                        return (index, NotifierResult(notifier: notifier.name, error: nil))
                    } catch {
                        return (index, NotifierResult(notifier: notifier.name, error: .wrapping(error)))
                    }
                }
            }
            var results = [NotifierResult?](repeating: nil, count: notifiers.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
    }

    /// Delivers to every notifier.
    /// - Throws: when any failed: `.transient` if any failure was transient, else `.permanent`,
    ///   with each failing notifier named.
    public func deliver(_ alert: Alert) async throws {
        let failures = await deliverAll(alert).filter { !$0.delivered }
        guard !failures.isEmpty else { return }
        let message = failures.map { "\($0.notifier): \($0.error!.message)" }.joined(separator: "; ")
        if failures.contains(where: { $0.error!.isTransient }) {
            throw NotifierError.transient(message)
        }
        throw NotifierError.permanent(message)
    }
}
