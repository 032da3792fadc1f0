import TophhieJSON
import TophhieRules

/// One event's texts per field, worked out once for every rule matched against the event: an
/// object's canonical JSON and a value's lower-cased texts cost more than the comparisons they
/// feed, and eighteen rules reading `Status` worked them out eighteen times.
///
/// Reused from event to event (`next`) without freeing anything. Not shared between threads:
/// each matching loop holds its own.
final class SlotTexts {
    // Unchecked: a class's stored properties are otherwise checked for overlapping access at
    // run time on every read and write (a tenth of `texts`' cost), and these are private, read
    // by one thread, and never lent out across a call that could reach them again.
    @exclusivity(unchecked) private var generation: UInt32 = 0
    @exclusivity(unchecked) private var stamps: [UInt32] = []
    @exclusivity(unchecked) private var raw: [[String]] = []
    @exclusivity(unchecked) private var foldedStamps: [UInt32] = []
    @exclusivity(unchecked) private var folded: [[String]] = []
    @exclusivity(unchecked) private var entryStamps: [UInt32] = []
    @exclusivity(unchecked) private var entryResults: [Bool] = []

    init() {}

    /// Forgets the last event's texts: the next ones read belong to another event.
    func next() {
        generation &+= 1
        if generation == 0 {
            // After four billion events the stamps could repeat: start them again.
            for i in stamps.indices { stamps[i] = 0; foldedStamps[i] = 0 }
            for i in entryStamps.indices { entryStamps[i] = 0 }
            generation = 1
        }
    }

    /// The current event's answer for entry `number` (`EntryNumbering`) when `record` gave it
    /// one, else nil. Not a closure worked out on a miss: the closure's captures were retained.
    @inline(__always) func entryResult(_ number: Int) -> Bool? {
        guard number < entryStamps.count, entryStamps[number] == generation else { return nil }
        return entryResults[number]
    }

    /// Remembers `result` as the current event's answer for entry `number`.
    func record(_ result: Bool, entry number: Int) {
        if number >= entryStamps.count {
            let grow = number + 1 - entryStamps.count
            entryStamps += [UInt32](repeating: 0, count: grow)
            entryResults += [Bool](repeating: false, count: grow)
        }
        entryResults[number] = result
        entryStamps[number] = generation
    }

    /// `FieldCondition.texts(value)` for the value at `slot` of the current event, lower-cased
    /// when `fold` is set.
    func texts(_ value: JSONValue, slot: FieldSlot, fold: Bool) -> [String] {
        let index = slot.index
        if index >= stamps.count {
            let grow = index + 1 - stamps.count
            stamps += [UInt32](repeating: 0, count: grow)
            foldedStamps += [UInt32](repeating: 0, count: grow)
            raw += [[String]](repeating: [], count: grow)
            folded += [[String]](repeating: [], count: grow)
        }
        // A scalar's one text is put in the last event's array, emptied, rather than a new array
        // made for it: two new arrays for every field a rule reads, every event (1.8% of the
        // reading thread's instructions). The caller's copy is let go before the next event, so
        // the array is not shared then.
        if stamps[index] != generation {
            switch value {
            case .array, .object: raw[index] = FieldCondition.texts(value)
            case .null: raw[index].removeAll(keepingCapacity: true)
            default:
                // Refilled in place when it held one text: emptying an array goes through the
                // general replacement of a range (150 instructions for one element).
                if let text = value.scalarText {
                    if raw[index].count == 1 { raw[index][0] = text } else { raw[index].removeAll(keepingCapacity: true); raw[index].append(text) }
                } else {
                    raw[index].removeAll(keepingCapacity: true)
                }
            }
            stamps[index] = generation
        }
        guard fold else { return raw[index] }
        if foldedStamps[index] != generation {
            if raw[index].count == 1, folded[index].count == 1 {
                folded[index][0] = raw[index][0].lowercased()
            } else {
                folded[index].removeAll(keepingCapacity: true)
                for text in raw[index] { folded[index].append(text.lowercased()) }
            }
            foldedStamps[index] = generation
        }
        return folded[index]
    }
}
