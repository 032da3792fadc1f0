import Foundation
import TophhieRules

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
    /// The last group of one field: its value, and its key with the key's hash. Apart from the
    /// list: emptying and refilling the list for every sign-in's user went through the general
    /// replacement of a range, and retained the value five times.
    private var only: (value: String, key: String, hashed: HashedText?)?

    /// The last `key(_:)`'s key with its hash, worked out once for all the rules that ask for it.
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
        if let only, UTF8Bytes.same(value, only.value) { return only.key }
        let key = EngineRun.folded(value)
        only = (value, key, nil)
        return key
    }

    /// `key(only:)` with its hash, worked out once for the value kept.
    mutating func hashed(only value: String) -> HashedText {
        let key = self.key(only: value)
        if let hashed = only?.hashed { return hashed }
        let made = HashedText(key)
        only?.hashed = made
        return made
    }
}
