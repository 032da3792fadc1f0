/// A request would wait longer than its caller allows for room in the shared Graph budget: a
/// 429 holds its tenant for longer (`GraphBudget.spend(_:maxWait:)`).
public struct GraphBudgetHeld: Error, Sendable, Equatable {
    /// How long the request would have waited, in seconds.
    public var seconds: Double

    public init(seconds: Double) {
        self.seconds = seconds
    }
}
