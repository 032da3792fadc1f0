import Foundation

extension EngineState {
    /// Whether an event id was already processed (and is still remembered).
    public func hasSeen(_ id: String) -> Bool { seen[id] != nil }

    /// Whether an event id is remembered with this content hash (`RuleEvent.revision`): the
    /// engine then skips that event when it comes again.
    public func hasProcessed(_ id: String, revision: String) -> Bool {
        seen[id] != nil && revisions?[id] == revision
    }
}
