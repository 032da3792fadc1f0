import Foundation
import TophhieRules

/// The names a stored event keeps values under, in order, shared by every event one plan
/// stores: a class, so each event refers to one list rather than carrying its own.
final class KeptNames: Sendable {
    let list: [String]
    /// Each name's place in `list`.
    let places: [String: Int]
    /// Each name's slot (the plan's names), for values read from a sign-in's own
    /// (`StoredValues.Storage.event`); empty for a decoded state's names, which only name texts.
    let slots: [FieldSlot]

    /// Names in the order given (the plan gives them sorted; a decoded state, its keys sorted).
    /// - Parameter slots: each name's slot, or none.
    init(_ list: [String], slots: [FieldSlot] = []) {
        precondition(slots.isEmpty || slots.count == list.count, "a slot for every name or none")
        self.list = list
        places = Dictionary(list.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        self.slots = slots
    }
}

/// A stored event's kept field values by Graph path: one text (or none) per name of its
/// `KeptNames`, or the sign-in read into slots that holds them.
///
/// Not a `[String: String]`: hashing eight path names into a new table for every stored event,
/// and each name again to read it back, was a tenth of the engine's instructions on many
/// people's sign-ins. A reader that knows the plan's names reads by place (`text(at:of:)`).
/// Encoded as the path → text object it replaces, so states written before read the same.
struct StoredValues: Sendable, Equatable {
    private(set) var names: KeptNames
    private let storage: Storage

    private enum Storage {
        case texts([String?])
        /// A sign-in read into slots, its texts read from them when asked: taking its nine or
        /// so texts into a list of their own retained each (and released it when the event was
        /// forgotten) for almost every sign-in of a replay, where one retain of the sign-in's
        /// values does.
        case event(SlotEvent)
    }

    /// `texts[i]` under `names.list[i]`.
    init(names: KeptNames, texts: [String?]) {
        precondition(names.list.count == texts.count, "one text or none per kept name")
        self.names = names
        storage = .texts(texts)
    }

    /// `event`'s texts under `names` (`RuleEvent.text(slot:)` of each name's slot): kept as
    /// they are when it holds its values in slots, read now otherwise.
    /// - Parameter names: names with their slots (the plan's).
    init(names: KeptNames, of event: any FastEvent) {
        precondition(names.slots.count == names.list.count, "names with their slots")
        self.names = names
        if let slotted = event as? SlotEvent {
            storage = .event(slotted)
        } else {
            storage = .texts(names.slots.map { event.text(slot: $0) })
        }
    }

    /// One text (or none) per name.
    var texts: [String?] {
        switch storage {
        case .texts(let texts): return texts
        case .event(let event): return names.slots.map { event.text(slot: $0) }
        }
    }

    /// The text under the name at `place` of `names`.
    @inline(__always) private func text(at place: Int) -> String? {
        switch storage {
        case .texts(let texts): return texts[place]
        case .event(let event): return event.text(slot: names.slots[place])
        }
    }

    /// The values of a path → text table.
    init(_ table: [String: String]) {
        let keys = table.keys.sorted()
        self.init(names: KeptNames(keys), texts: keys.map { table[$0] })
    }

    /// The text kept under `path`, nil when none is.
    subscript(path: String) -> String? {
        names.places[path].flatMap { text(at: $0) }
    }

    /// The text at `place` of `expected` (the plan's names), read without hashing when these
    /// values were kept under those very names.
    @inline(__always) func text(at place: Int, of expected: KeptNames) -> String? {
        if names === expected { return text(at: place) }
        return self[expected.list[place]]
    }

    /// As a path → text table.
    var table: [String: String] {
        var table: [String: String] = [:]
        for (place, text) in texts.enumerated() { if let text { table[names.list[place]] = text } }
        return table
    }

    static func == (a: StoredValues, b: StoredValues) -> Bool {
        if a.names === b.names || a.names.list == b.names.list { return a.texts == b.texts }
        return a.table == b.table
    }
}
