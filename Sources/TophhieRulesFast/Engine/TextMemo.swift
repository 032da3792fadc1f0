import TophhieRules
/// A few recent results of a pure text function, kept by their input's bytes: one person's
/// sign-ins repeat the same browsers, systems and places, and working each out again for every
/// event and rule (versions stripped, values folded) was a fifth of first-seen's work.
struct TextMemo {
    private var entries: [(input: String, output: String)] = []
    private var next = 0
    private let capacity: Int

    init(capacity: Int = 8) { self.capacity = max(1, capacity) }

    /// `make(input)`, from the memo when `input` was given lately; the oldest entry makes room.
    mutating func value(_ input: String, _ make: (String) -> String) -> String {
        // Looked through in place: walking the entries by value copied both strings of each
        // (retained and released) for every look-up.
        let found = entries.withUnsafeBufferPointer { buffer in
            buffer.indices.first { UTF8Bytes.same(buffer[$0].input, input) }
        }
        if let found { return entries[found].output }
        let output = make(input)
        if entries.count < capacity {
            entries.append((input, output))
        } else {
            entries[next] = (input, output)
            next = (next + 1) % capacity
        }
        return output
    }
}
