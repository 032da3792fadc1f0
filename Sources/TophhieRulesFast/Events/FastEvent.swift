import Foundation
import TophhieJSON
import TophhieRules

/// An event as the fast engine reads it: by interned path (`FieldSlot`) as well as by path.
/// A `SlotEvent` reads a slot where it lies; any other event is wrapped (`PathEvent`) once, as
/// it enters the engine.
package protocol FastEvent: RuleEvent {
    /// The value at an interned path, nil when absent.
    func field(slot: FieldSlot) -> JSONValue?
    /// `field(slot:)?.scalarText`, taken without copying the value around it where it can be.
    func text(slot: FieldSlot) -> String?
}

/// Any `RuleEvent`, its slots read by their paths.
struct PathEvent: FastEvent {
    let event: any RuleEvent

    var eventID: String { event.eventID }
    var eventTime: Date { event.eventTime }
    var revision: String? { event.revision }
    func field(at components: [String]) -> JSONValue? { event.field(at: components) }
    func keywordTexts() -> [String] { event.keywordTexts() }
    func field(slot: FieldSlot) -> JSONValue? { event.field(at: slot.components) }
    func text(slot: FieldSlot) -> String? { event.field(at: slot.components)?.scalarText }
}

/// `event` as the fast engine reads it: itself when it reads by slot, else wrapped.
package func fastEvent(_ event: any RuleEvent) -> any FastEvent {
    (event as? any FastEvent) ?? PathEvent(event: event)
}
