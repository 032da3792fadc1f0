import TophhieRules
/// A table by sign-in id whose keys keep their hash (`HashedText`): the engine looks every id up
/// in it, stores it and forgets it again, and a table keyed by the id's text hashed it for each
/// of those (a removal hashed the ids it moved as well: 3,000 instructions an id forgotten).
/// First-seen baselines keep their known values in one too: a sign-in's value is looked up by
/// every rule on its fields, under one hash.
///
/// Written and read as a JSON object from id to value, as `[String: Value]` is: the state's
/// format does not change.
struct IDTable<Value> {
    private(set) var entries: [HashedText: Value] = [:]

    init() {}

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }
    /// The ids, in no order.
    var ids: [String] { entries.keys.map(\.text) }

    subscript(key: HashedText) -> Value? {
        get { entries[key] }
        set { entries[key] = newValue }
    }

    /// The value of `id` (its hash worked out for the call: hash it once with `HashedText` to
    /// ask more than once).
    subscript(id: String) -> Value? {
        get { entries[HashedText(id)] }
        set { entries[HashedText(id)] = newValue }
    }

    subscript(key: HashedText, default value: @autoclosure () -> Value) -> Value {
        get { entries[key] ?? value() }
        set { entries[key] = newValue }
    }

    @discardableResult
    mutating func removeValue(forKey key: HashedText) -> Value? { entries.removeValue(forKey: key) }

    /// Where `key`'s value is, for reading and changing it in place (`subscript(at:)`) while
    /// nothing is added or removed.
    func index(forKey key: HashedText) -> Dictionary<HashedText, Value>.Index? { entries.index(forKey: key) }

    /// The value at a place `index(forKey:)` found.
    subscript(at place: Dictionary<HashedText, Value>.Index) -> Value {
        get { entries.values[place] }
        set { entries.values[place] = newValue }
    }

    /// The entries, for sorting and choosing among them.
    var all: [(key: HashedText, value: Value)] { entries.map { ($0.key, $0.value) } }

    /// A table of `pairs` (keys distinct).
    init(uniqueKeysWithValues pairs: [(key: HashedText, value: Value)]) {
        entries = Dictionary(uniqueKeysWithValues: pairs.map { ($0.key, $0.value) })
    }

    /// The entries `isIncluded` keeps, in a new table.
    func filter(_ isIncluded: (HashedText, Value) throws -> Bool) rethrows -> IDTable {
        var kept = IDTable()
        kept.entries = try entries.filter { try isIncluded($0.key, $0.value) }
        return kept
    }

    /// Every entry, in no order.
    func forEach(_ body: (HashedText, Value) throws -> Void) rethrows {
        for (key, value) in entries { try body(key, value) }
    }
}

extension IDTable {
    /// The table of a plain `[id: value]` dictionary.
    init(_ dictionary: [String: Value]) {
        entries.reserveCapacity(dictionary.count)
        for (id, value) in dictionary { entries[HashedText(id)] = value }
    }

    /// As a plain `[id: value]` dictionary.
    var dictionary: [String: Value] {
        var plain: [String: Value] = [:]
        plain.reserveCapacity(entries.count)
        for (key, value) in entries { plain[key.text] = value }
        return plain
    }
}

extension IDTable: Sendable where Value: Sendable {}
extension IDTable: Equatable where Value: Equatable {}

extension IDTable: ExpressibleByDictionaryLiteral {
    init(dictionaryLiteral elements: (String, Value)...) {
        for (id, value) in elements { entries[HashedText(id)] = value }
    }
}
