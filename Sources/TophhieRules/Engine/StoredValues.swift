import Foundation

/// The names a stored event keeps values under, in order, shared by every event one plan
/// stores: a class, so each event refers to one list rather than carrying its own.
final class KeptNames: Sendable {
    let list: [String]
    /// Each name's place in `list`.
    let places: [String: Int]

    /// Names in the order given (the plan gives them sorted; a decoded state, its keys sorted).
    init(_ list: [String]) {
        self.list = list
        places = Dictionary(list.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

/// A stored event's kept field values by Graph path: one text (or none) per name of its
/// `KeptNames`.
///
/// Not a `[String: String]`: hashing eight path names into a new table for every stored event,
/// and each name again to read it back, was a tenth of the engine's instructions on many
/// people's sign-ins. A reader that knows the plan's names reads by place (`text(at:of:)`).
/// Encoded as the path → text object it replaces, so states written before read the same.
struct StoredValues: Sendable, Codable, Equatable {
    private(set) var names: KeptNames
    private(set) var texts: [String?]

    /// `texts[i]` under `names.list[i]`.
    init(names: KeptNames, texts: [String?]) {
        precondition(names.list.count == texts.count, "one text or none per kept name")
        self.names = names
        self.texts = texts
    }

    /// The values of a path → text table.
    init(_ table: [String: String]) {
        let keys = table.keys.sorted()
        self.init(names: KeptNames(keys), texts: keys.map { table[$0] })
    }

    /// The text kept under `path`, nil when none is.
    subscript(path: String) -> String? {
        names.places[path].flatMap { texts[$0] }
    }

    /// The text at `place` of `expected` (the plan's names), read without hashing when these
    /// values were kept under those very names.
    @inline(__always) func text(at place: Int, of expected: KeptNames) -> String? {
        if names === expected { return texts[place] }
        return self[expected.list[place]]
    }

    /// As a path → text table.
    var table: [String: String] {
        var table: [String: String] = [:]
        for (place, text) in texts.enumerated() { if let text { table[names.list[place]] = text } }
        return table
    }

    /// These values under `shared` instead of an equal list of their own: a decoded state's
    /// events then read by place as the plan's own do.
    mutating func adopt(_ shared: KeptNames) {
        if names !== shared, names.list == shared.list { names = shared }
    }

    static func == (a: StoredValues, b: StoredValues) -> Bool {
        if a.names === b.names || a.names.list == b.names.list { return a.texts == b.texts }
        return a.table == b.table
    }

    init(from decoder: any Decoder) throws {
        self.init(try [String: String](from: decoder))
    }

    func encode(to encoder: any Encoder) throws {
        try table.encode(to: encoder)
    }
}
