import TophhieRules
/// One event's key under a correlation's `group-by`, with its hash.
///
/// Only the key is kept: first-seen and travel read a group for every event and rule, and the
/// values themselves are wanted only by an alert (`values(of:slots:)` reads them again). Keeping
/// them (a copy of each text, an array for several) cost retains and releases on every event.
struct EventGroup {
    /// The key with its hash, for the run's tables.
    let hashed: HashedText
    /// The key's text, as alerts and the state name the group.
    var key: String { hashed.text }

    /// `event`'s group under `slots`, keyed through `keys`; nil when a value is missing or empty.
    /// (Inlined: called, it cost its two callers 1.2% more of the engine's instructions. The
    /// event borrowed: an initializer takes its arguments owned, and the event was copied, its
    /// box retained and released, for every event and rule.)
    @inline(__always) init?(_ event: borrowing any FastEvent, slots: [FieldSlot], keys: inout GroupKeyCache) {
        if slots.count == 1 {
            guard let text = event.text(slot: slots[0]), !text.isEmpty else { return nil }
            // The cache works the key out (or keeps the last) and gives it with its hash.
            hashed = keys.hashed(only: text)
            return
        }
        var values: [String] = []
        for slot in slots {
            guard let text = event.text(slot: slot), !text.isEmpty else { return nil }
            values.append(text)
        }
        _ = keys.key(values)
        hashed = keys.hashed()
    }

    /// The group of a key already worked out (`EnginePlan.sharedGroupSlots`).
    init(hashed: HashedText) { self.hashed = hashed }

    /// The values of a group made from `event` under `slots`, in the order of `group-by`.
    static func values(of event: any FastEvent, slots: [FieldSlot]) -> [String] {
        slots.map { event.text(slot: $0) ?? "" }
    }
}
