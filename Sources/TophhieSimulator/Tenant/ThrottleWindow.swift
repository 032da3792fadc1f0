import Foundation

/// A sliding-window request budget on the simulator clock. Pure state.
struct ThrottleWindow: Sendable {
    let limit: Int
    let window: TimeInterval
    private var accepted: [Date] = []

    init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// Admits the request, or says how many seconds until a slot frees up.
    mutating func admit(at now: Date) -> TimeInterval? {
        accepted.removeAll { now.timeIntervalSince($0) >= window }
        if accepted.count < limit {
            accepted.append(now)
            return nil
        }
        let oldest = accepted.min() ?? now
        return max(0.001, window - now.timeIntervalSince(oldest))
    }
}
