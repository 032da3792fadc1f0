import TophhieJSON
import TophhieRules

/// Which detection rules an event satisfies, remembered by the values the rules read: that
/// answer is a function of those values alone (matching reads nothing else), and sign-ins
/// repeat a handful of them (error code, client app, risk levels), so most events of a batch
/// are answered by a look-up instead of every rule's tests.
///
/// Values are compared exactly (strings byte for byte, numbers by their bits), never as Swift
/// compares strings: two texts that are canonically equivalent but differ in bytes can match
/// differently, and an attacker names their own device. The hash only finds the candidate.
/// A slot only `exists` tests read counts by its presence alone (a latitude's value would
/// otherwise make every located sign-in a key of its own).
///
/// Bounded: at most `capacity / 2` keys for a batch, and switched off for the rest of it when
/// fewer than half the events are answered (a rule set that reads an address or an id) or a
/// value is one it does not take (an object: SigmaHQ's `Status`).
/// Not shared between threads: one matching loop holds it.
struct MatchMemo {
    /// The slots the detection rules read, and whether only their presence counts.
    struct Key: Sendable {
        let slots: [FieldSlot]
        let presenceOnly: [Bool]
    }

    private let key: Key
    private static let capacity = 256
    /// By table place: the key's hash with its top bit set (0: empty), its values, its answer
    /// (the values' table made with the first key kept).
    private var hashes: [UInt64]
    private var values: [JSONValue?] = []
    private var answers: [[Int]]
    private var count = 0
    /// The last `answer(for:)` miss's hash, its values in `current`, for `remember`.
    private var pending: UInt64?
    /// The table place of the key answered last, or -1.
    private var last = -1
    private var current: [JSONValue?]
    private var asked = 0, missed = 0
    /// Whether the memo is still used for this batch.
    private(set) var isOn = true

    init(_ key: Key) {
        self.key = key
        hashes = Array(repeating: 0, count: MatchMemo.capacity)
        answers = Array(repeating: [], count: MatchMemo.capacity)
        current = Array(repeating: nil, count: key.slots.count)
    }

    /// The detection rules `event` satisfies, when an event with the same values was answered
    /// before; nil otherwise (then `remember` takes the answer worked out).
    mutating func answer(for event: any FastEvent) -> [Int]? {
        guard isOn else { return nil }
        asked += 1
        let width = key.slots.count
        // Most sign-ins have the values of the one before (a success like the last): a slot
        // event's compared with the key answered last where they lie, before anything is copied
        // or hashed.
        let slotted = last >= 0 ? event as? SlotEvent : nil
        if let slotted,
           values.withUnsafeBufferPointer({ slotted.holds(UnsafeBufferPointer(rebasing: $0[last * width..<(last + 1) * width]), at: key.slots, presenceOnly: key.presenceOnly) }) {
            return answers[last]
        }
        for place in key.slots.indices {
            let value = event.field(slot: key.slots[place])
            if key.presenceOnly[place] {
                // Only `exists` reads it, and a null is absent to it.
                current[place] = value.map { $0.isNull } ?? true ? nil : .null
            } else {
                guard MatchMemo.takes(value) else { turnOff(); return nil }
                current[place] = value
            }
        }
        // Another kind of event is compared with the last key now (a slot event was, above).
        if last >= 0, slotted == nil, MatchMemo.same(values, from: last * width, current) { return answers[last] }
        var hash = SlotRevision()
        current.withUnsafeBufferPointer { current in
            for value in current { hash.add(slot: value) }
        }
        let full = hash.word | (1 << 63)
        var place = Int(truncatingIfNeeded: full) & (MatchMemo.capacity - 1)
        while hashes[place] != 0 {
            if hashes[place] == full, MatchMemo.same(values, from: place * width, current) {
                last = place
                return answers[place]
            }
            place = (place + 1) & (MatchMemo.capacity - 1)
        }
        pending = full
        return miss()
    }

    private mutating func miss() -> [Int]? {
        missed += 1
        if asked >= 64, missed * 2 > asked { turnOff() }
        return nil
    }

    private mutating func turnOff() {
        isOn = false
        pending = nil
        // What the memo held is let go now, not with the batch.
        answers = []
        values = []
    }

    /// Keeps `answer` for the values of the last `answer(for:)` that missed.
    mutating func remember(_ answer: [Int]) {
        guard isOn, let full = pending, count < MatchMemo.capacity / 2 else { return }
        pending = nil
        let width = key.slots.count
        if values.isEmpty { values = Array(repeating: nil, count: MatchMemo.capacity * width) }
        var place = Int(truncatingIfNeeded: full) & (MatchMemo.capacity - 1)
        while hashes[place] != 0 { place = (place + 1) & (MatchMemo.capacity - 1) }
        hashes[place] = full
        for offset in 0..<width { values[place * width + offset] = current[offset] }
        answers[place] = answer
        last = place
        count += 1
    }

    /// Whether a value can be compared exactly: scalars, and arrays of them.
    private static func takes(_ value: JSONValue?) -> Bool {
        switch value {
        case .object?: return false
        case .array(let items)?: return items.allSatisfy(takes)
        default: return true
        }
    }

    /// Whether the stored values from `start` are exactly `current`.
    /// (Through buffer pointers, each pair compared where it lies: a loop over the arrays
    /// copied each value out, a retain and a release a string, and cost more than matching.)
    private static func same(_ stored: [JSONValue?], from start: Int, _ current: [JSONValue?]) -> Bool {
        stored.withUnsafeBufferPointer { stored in
            current.withUnsafeBufferPointer { current in
                for offset in current.indices where !same(stored, start + offset, current, offset) { return false }
                return true
            }
        }
    }

    /// Whether `a[i]` is exactly `b[j]` (`same(_:_:)`), read where they lie.
    @inline(__always) static func same(_ a: UnsafeBufferPointer<JSONValue?>, _ i: Int, _ b: UnsafeBufferPointer<JSONValue?>, _ j: Int) -> Bool {
        switch a[i] {
        case .string(let x)?: if case .string(let y)? = b[j] { return UTF8Bytes.same(x, y) } else { return false }
        case .int(let x)?: if case .int(let y)? = b[j] { return x == y } else { return false }
        default: return same(a[i], b[j])
        }
    }

    /// Exact equality: same kind, strings byte for byte, numbers bit for bit.
    static func same(_ a: JSONValue?, _ b: JSONValue?) -> Bool {
        switch a {
        case nil: return b == nil
        case .null?: if case .null? = b { return true } else { return false }
        case .bool(let x)?: if case .bool(let y)? = b { return x == y } else { return false }
        case .int(let x)?: if case .int(let y)? = b { return x == y } else { return false }
        case .double(let x)?: if case .double(let y)? = b { return x.bitPattern == y.bitPattern } else { return false }
        case .string(let x)?: if case .string(let y)? = b { return UTF8Bytes.same(x, y) } else { return false }
        case .array(let x)?:
            guard case .array(let y)? = b, x.count == y.count else { return false }
            for index in x.indices where !same(x[index], y[index]) { return false }
            return true
        case .object?: return false
        }
    }
}

extension MatchMemo.Key {
    /// The slots `detections` read; nil when a keyword search reads every string of an event.
    init?(_ detections: [Detection]) {
        var order: [FieldSlot] = [], byValue: Set<FieldSlot> = []
        func read(_ slot: FieldSlot, value: Bool) {
            if !order.contains(slot) { order.append(slot) }
            if value { byValue.insert(slot) }
        }
        func walk(_ search: SearchIdentifier) -> Bool {
            switch search {
            case .allOf(let conditions):
                for condition in conditions {
                    let presence = condition.matchers.allSatisfy { if case .exists = $0 { return true }; return false }
                    read(FieldSlot.intern(condition.components), value: !presence || condition.matchers.isEmpty)
                    for case .fieldRef(let other, _, _) in condition.matchers { read(FieldSlot.intern(other), value: true) }
                }
                return true
            case .anyOf(let alternatives): return alternatives.allSatisfy(walk)
            case .keywords: return false
            }
        }
        for detection in detections {
            for search in detection.ordered where !walk(search) { return nil }
        }
        slots = order
        presenceOnly = order.map { !byValue.contains($0) }
    }
}
