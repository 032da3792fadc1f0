import Foundation

/// The last group key worked out, kept for the next: the sign-ins of one person share their
/// user (and often their address), and folding the same values again for every event and rule
/// was a twentieth of the engine's work.
///
/// Values are compared byte for byte, not as Swift compares strings (canonical equivalence):
/// the key must be exactly what `EngineRun.groupKey` gives for these bytes.
struct GroupKeyCache {
    private var values: [String] = []
    private var key = ""
    /// `key` with its hash, once asked for (`hashed`); nil when `key` changed since.
    private var hashedKey: HashedText?

    /// The last key with its hash, worked out once for all the rules that ask for it.
    mutating func hashed() -> HashedText {
        if let hashedKey { return hashedKey }
        let made = HashedText(key)
        hashedKey = made
        return made
    }

    /// `EngineRun.groupKey(values)`, worked out again only when `values` differ from the last.
    mutating func key(_ values: [String]) -> String {
        if values.count == self.values.count, !values.isEmpty,
           zip(values, self.values).allSatisfy({ UTF8Bytes.same($0, $1) }) {
            return key
        }
        // Copied into the list kept, not shared with the caller's: a caller writing over its
        // own list would otherwise find it shared, and copy it, every time.
        self.values.removeAll(keepingCapacity: true)
        self.values.append(contentsOf: values)
        key = EngineRun.groupKey(values)
        hashedKey = nil
        return key
    }

    /// `EngineRun.groupKey([value])`, for a group of one field, without an array to call it.
    mutating func key(only value: String) -> String {
        keep(only: value)
        return key
    }

    /// `key(only:)` with its hash, for a group of one field.
    mutating func hashed(only value: String) -> HashedText {
        keep(only: value)
        return hashed()
    }

    /// Makes `value`'s key the last one, unless it already is.
    @inline(__always) private mutating func keep(only value: String) {
        if values.count == 1, UTF8Bytes.same(value, values[0]) { return }
        // Refilled in place: the last array is reused rather than a new one made per event.
        values.removeAll(keepingCapacity: true)
        values.append(value)
        key = EngineRun.folded(value)
        hashedKey = nil
    }
}
