import TophhieRules

/// Keeps every alert it is given, in memory: for tests and `notify test`.
///
/// Failures can be scripted ahead, one per coming attempt, to drive retry paths.
public actor RecordingNotifier: Notifier {
    public nonisolated let name: String
    /// Every alert delivered successfully, in order.
    public private(set) var delivered: [Alert] = []
    /// How many times `deliver` was called, failures included.
    public private(set) var attempts = 0
    private var scriptedFailures: [NotifierError] = []

    public init(name: String = "recording") {
        self.name = name
    }

    /// Makes the next `errors.count` attempts fail with these errors, in order.
    public func failNext(_ errors: [NotifierError]) {
        scriptedFailures.append(contentsOf: errors)
    }

    /// Drops the failures still scripted: the next attempt succeeds.
    public func failNoMore() {
        scriptedFailures.removeAll()
    }

    /// The ids delivered, in order.
    public var deliveredIDs: [String] { delivered.map(\.id) }

    public func deliver(_ alert: Alert) async throws {
        attempts += 1
        if !scriptedFailures.isEmpty {
            throw scriptedFailures.removeFirst()
        }
        delivered.append(alert)
    }
}
