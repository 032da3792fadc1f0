import Foundation

extension EngineState {
    /// Whether an event id was already processed (and is still remembered).
    public func hasSeen(_ id: String) -> Bool { seen[id] != nil }
}
