import Foundation

/// Paths of a JSON object read straight into numbered slots: the parser fills an array, one
/// value per path, without building the objects around them.
///
/// Slot `i` holds the value at `paths[i]`, nil when absent, exactly what `value(at: paths[i])`
/// of the fully parsed object gives (an object met twice under one key counts once, the last).
public struct JSONSlotLayout: Sendable {
    struct Node: Sendable {
        var key: [UInt8]
        var keyText: String
        /// The slot this node's whole value fills, or -1.
        var slot: Int
        var children: [Node]
        /// `children`'s names by bucket (`JSONSlotLayout.buckets(for:)`).
        var childBuckets: [Int16]
        /// Every slot at or under this node, cleared when the node is met again.
        var slotsBelow: [Int]
        /// Paths under this node as components after it, with their slots: read from the built
        /// value when the node is not an object (an array indexed by position).
        var relative: [(components: [String], slot: Int)]
    }

    let root: [Node]
    /// `root`'s names by bucket.
    let rootBuckets: [Int16]
    public let paths: [[String]]

    /// A layout for `paths` (each non-empty), slot `i` for `paths[i]`.
    public init(paths: [[String]]) {
        self.paths = paths
        var root: [Node] = []
        for (slot, path) in paths.enumerated() where !path.isEmpty {
            JSONSlotLayout.insert(path[...], slot: slot, into: &root)
        }
        JSONSlotLayout.fillBuckets(&root)
        self.root = root
        rootBuckets = JSONSlotLayout.buckets(for: root)
    }

    /// Buckets a member name falls in, by its length and its first and last bytes: a record's
    /// members are found by one look rather than a walk through the layout's names (the walk
    /// cost 1.3% of a replay's reading thread, most members being names no rule reads).
    static let bucketCount = 128

    @inline(__always) static func bucket(length: Int, first: UInt8, last: UInt8) -> Int {
        (length &* 31 &+ Int(first) &* 7 &+ Int(last)) & (bucketCount - 1)
    }

    /// Per bucket: 0 when no name of `nodes` falls in it, the index + 1 of the only one that
    /// does, -1 when several do (they are then found by the walk). Empty names are never bucketed.
    static func buckets(for nodes: [Node]) -> [Int16] {
        var buckets = [Int16](repeating: 0, count: bucketCount)
        for (index, node) in nodes.enumerated() where !node.key.isEmpty {
            let bucket = Self.bucket(length: node.key.count, first: node.key[0], last: node.key[node.key.count - 1])
            buckets[bucket] = buckets[bucket] == 0 ? Int16(index + 1) : -1
        }
        return buckets
    }

    private static func fillBuckets(_ nodes: inout [Node]) {
        for index in nodes.indices {
            fillBuckets(&nodes[index].children)
            nodes[index].childBuckets = buckets(for: nodes[index].children)
        }
    }

    private static func insert(_ path: ArraySlice<String>, slot: Int, into nodes: inout [Node]) {
        let key = path.first!
        let position = nodes.firstIndex { $0.keyText == key } ?? {
            nodes.append(Node(key: Array(key.utf8), keyText: key, slot: -1, children: [], childBuckets: [], slotsBelow: [], relative: []))
            return nodes.count - 1
        }()
        nodes[position].slotsBelow.append(slot)
        let rest = path.dropFirst()
        if rest.isEmpty {
            nodes[position].slot = slot
        } else {
            nodes[position].relative.append((Array(rest), slot))
            insert(rest, slot: slot, into: &nodes[position].children)
        }
    }
}

extension JSONValue {
    /// Parses one JSON object into `layout`'s slots.
    /// - Throws: `JSONParseError` as `parse` does: the whole text is checked for structure,
    ///   and what fills a slot for UTF-8 too; a text that is not an object.
    /// - Parameter untilFilled: stop reading as soon as every slot of a top-level member has a
    ///   value, without checking the rest: for a first pass that only needs a record's id and
    ///   time (Graph writes them first) and leaves the checking to a second pass.
    public static func parseSlots(_ bytes: [UInt8], layout: JSONSlotLayout, untilFilled: Bool = false) throws -> [JSONValue?] {
        try bytes.withUnsafeBytes { try parseSlots($0, layout: layout, untilFilled: untilFilled) }
    }

    /// `parseSlots` over bytes lent for the call.
    public static func parseSlots(_ bytes: UnsafeRawBufferPointer, layout: JSONSlotLayout, untilFilled: Bool = false) throws -> [JSONValue?] {
        var slots = [JSONValue?](repeating: nil, count: layout.paths.count)
        try JSONParser.parsing(bytes) { parser in
            parser.stopWhenFilled = untilFilled
            try parser.parseSlotDocument(layout.root, layout.rootBuckets, into: &slots)
        }
        return slots
    }
}

extension JSONValue {
    /// `parseSlots` for the object that starts at `start` (after any whitespace) in bytes that
    /// go on past it: its slots, and the index just past its closing brace. Reads records that
    /// lie side by side without finding where each ends first.
    /// - Throws: `JSONParseError` as `parseSlots` does for the object; what follows it is not read.
    public static func parseSlots(_ bytes: UnsafeRawBufferPointer, from start: Int, layout: JSONSlotLayout) throws -> (slots: [JSONValue?], end: Int) {
        var slots = [JSONValue?](repeating: nil, count: layout.paths.count)
        let end = try JSONParser.parsing(bytes) { parser in
            parser.index = start
            try parser.parseSlotObjectAt(layout.root, layout.rootBuckets, into: &slots)
            return parser.index
        }
        return (slots, end)
    }
}

extension JSONParser {
    /// The object at `index` (after whitespace), leaving `index` just past it.
    mutating func parseSlotObjectAt(_ nodes: [JSONSlotLayout.Node], _ buckets: [Int16], into slots: inout [JSONValue?]) throws {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw error("expected an object") }
        try parseSlotObject(nodes, buckets, depth: 0, into: &slots)
    }

    mutating func parseSlotDocument(_ nodes: [JSONSlotLayout.Node], _ buckets: [Int16], into slots: inout [JSONValue?]) throws {
        try parseSlotObjectAt(nodes, buckets, into: &slots)
        if stopped { return }
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected text after the value") }
    }

    /// An object at `index`; members with a node fill slots, the rest are walked over.
    private mutating func parseSlotObject(_ nodes: [JSONSlotLayout.Node], _ buckets: [Int16], depth: Int, into slots: inout [JSONValue?]) throws {
        guard depth < Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth) levels") }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
            let found = try memberIndex(nodes, buckets)
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
            index += 1
            skipWhitespace()
            if let found {
                // A key met again replaces what it held, as in the parsed object.
                for slot in nodes[found].slotsBelow { slots[slot] = nil }
                let slot = nodes[found].slot
                if slot < 0, index < bytes.count, bytes[index] == UInt8(ascii: "{") {
                    try parseSlotObject(nodes[found].children, nodes[found].childBuckets, depth: depth + 1, into: &slots)
                } else {
                    let value = try parseValue(depth: depth + 1, .all)
                    if slot >= 0 { slots[slot] = value }
                    for (components, slot) in nodes[found].relative { slots[slot] = value.value(at: components) }
                }
                if stopWhenFilled, depth == 0, !slots.contains(where: { $0 == nil }) { stopped = true; return }
            } else {
                _ = try parseValue(depth: depth + 1, .skip)
            }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return }
            throw error("expected ',' or '}' in an object")
        }
    }

    /// Reads a member name and finds its node's place by comparing bytes (the length first); a
    /// name with escapes is decoded. By place, not by node: handing a node back copied its tables.
    private mutating func memberIndex(_ nodes: [JSONSlotLayout.Node], _ buckets: [Int16]) throws -> Int? {
        let start = index + 1
        let scan = JSONStringScan.quoteBackslashOrControl(in: UnsafeRawBufferPointer(bytes), from: start)
        if scan < bytes.count, bytes[scan] == UInt8(ascii: "\"") {
            let length = scan - start
            index = scan + 1
            if length > 0 {
                let entry = buckets[JSONSlotLayout.bucket(length: length, first: bytes[start], last: bytes[scan - 1])]
                if entry == 0 { return nil }
                if entry > 0 {
                    let i = Int(entry) - 1
                    let same = nodes[i].key.count == length
                        && nodes[i].key.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes.baseAddress! + start, length) == 0 }
                    return same ? i : nil
                }
            }
            for i in nodes.indices where nodes[i].key.count == length {
                if length == 0 || nodes[i].key.withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress! + start, length) == 0 }) {
                    return i
                }
            }
            return nil
        }
        let key = try parseString()
        return nodes.firstIndex { $0.keyText == key }
    }
}
