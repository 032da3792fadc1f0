/// One event's values under a correlation's `group-by`, and their key.
///
/// A group of one field (the pack's `userId`) keeps its value without an array: first-seen and
/// travel read a group for every event and rule, and gathering one value in an array each time
/// was about a third of the arrays the engine thread freed on many people's sign-ins.
struct EventGroup {
    /// The key with its hash, for the run's tables.
    let hashed: HashedText
    /// The key's text, as alerts and the state name the group.
    var key: String { hashed.text }
    private let only: String
    private let many: [String]?

    /// The values in the order of `group-by`.
    var values: [String] { many ?? [only] }

    /// `event`'s group under `slots`, keyed through `keys`; nil when a value is missing or empty.
    /// (Inlined: called, it cost its two callers 1.2% more of the engine's instructions.)
    @inline(__always) init?(_ event: any RuleEvent, slots: [FieldSlot], keys: inout GroupKeyCache) {
        if slots.count == 1 {
            guard let text = event.field(slot: slots[0])?.scalarText, !text.isEmpty else { return nil }
            only = text
            many = nil
            // The cache works the key out (or keeps the last), then gives it with its hash.
            _ = keys.key(only: text)
            hashed = keys.hashed()
            return
        }
        var values: [String] = []
        for slot in slots {
            guard let text = event.field(slot: slot)?.scalarText, !text.isEmpty else { return nil }
            values.append(text)
        }
        only = ""
        many = values
        _ = keys.key(values)
        hashed = keys.hashed()
    }
}
