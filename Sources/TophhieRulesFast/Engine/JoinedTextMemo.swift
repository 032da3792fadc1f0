import TophhieRules
/// A few recent joins of two texts, kept by their parts' bytes: travel writes the readable line
/// of every located sign-in ("Lisbon, PT", "Edge on Windows"), and one person's sign-ins repeat
/// a handful of places and devices, so joining them again for each was most of the line's cost.
struct JoinedTextMemo {
    private var entries: [(first: String, second: String, joined: String)] = []
    private var next = 0
    private let capacity: Int

    init(capacity: Int = 8) { self.capacity = max(1, capacity) }

    /// `join(first, second)`, from the memo when the same two parts were given lately; the
    /// oldest entry makes room.
    mutating func value(_ first: String, _ second: String, _ join: (String, String) -> String) -> String {
        // Looked through in place: walking the entries by value copied their three strings each
        // (retained and released) for every look-up.
        let found = entries.withUnsafeBufferPointer { buffer in
            buffer.indices.first { UTF8Bytes.same(buffer[$0].first, first) && UTF8Bytes.same(buffer[$0].second, second) }
        }
        if let found { return entries[found].joined }
        let joined = join(first, second)
        if entries.count < capacity {
            entries.append((first, second, joined))
        } else {
            entries[next] = (first, second, joined)
            next = (next + 1) % capacity
        }
        return joined
    }
}
