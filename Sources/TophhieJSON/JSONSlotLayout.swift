import Foundation

/// Paths of a JSON object read straight into numbered slots: the parser fills an array, one
/// value per path, without building the objects around them.
///
/// Slot `i` holds the value at `paths[i]`, nil when absent, exactly what `value(at: paths[i])`
/// of the fully parsed object gives (an object met twice under one key counts once, the last);
/// a slot that opens objects (`init(paths:opening:)`) holds an empty object for an object.
public struct JSONSlotLayout: Sendable {
    /// A member name of the layout at one level, as it is built.
    private struct TreeNode {
        var key: [UInt8]
        var keyText: String
        var slot: Int
        var children: [TreeNode]
        var slotsBelow: [Int]
        var relative: [(components: [String], slot: Int)]
        var opens = false
    }

    /// A member name of the layout, in flat tables (`Tables`): plain numbers, so the parser reads
    /// it through a pointer. Reading the tree's nodes (structs of arrays) retained and released
    /// each of their arrays for every member of every record, a tenth of the reading thread's
    /// reference counting.
    struct Node {
        /// Where the name's bytes start in `Tables.keys`, and how many.
        var keyStart: Int32
        var keyLength: Int32
        /// The slot this node's whole value fills, or -1.
        var slot: Int32
        /// The node's children: a `Level`.
        var children: Level
        /// Every slot at or under this node (in `Tables.below`), cleared when the node is met again.
        var belowStart: Int32
        var belowCount: Int32
        /// Paths under this node as components after it, with their slots (`Tables.relatives`),
        /// read from the built value when the node is not an object (an array indexed by
        /// position); -1 when none.
        var relative: Int32
        /// An object here fills `slot` with an empty object and is read into the slots under
        /// the node, not built (`init(paths:opening:)`).
        var opens: Bool
    }

    /// One object's names: nodes side by side in `Tables.nodes`, and their bucket table.
    struct Level {
        var first: Int32
        var count: Int32
        /// Where the level's `bucketCount` buckets start in `Tables.buckets`.
        var buckets: Int32
    }

    /// The flat tables, allocated once and never changed: read through `View` while parsing.
    final class Tables: @unchecked Sendable {
        let nodes: UnsafeMutableBufferPointer<Node>
        let keys: UnsafeMutableBufferPointer<UInt8>
        let buckets: UnsafeMutableBufferPointer<Int32>
        let below: UnsafeMutableBufferPointer<Int32>
        let relatives: [[(components: [String], slot: Int)]]
        /// Each node's name as text: a name written with escapes is decoded and compared as text.
        let keyTexts: [String]

        init(nodes: [Node], keys: [UInt8], buckets: [Int32], below: [Int32], relatives: [[(components: [String], slot: Int)]], keyTexts: [String]) {
            self.nodes = .copying(nodes)
            self.keys = .copying(keys)
            self.buckets = .copying(buckets)
            self.below = .copying(below)
            self.relatives = relatives
            self.keyTexts = keyTexts
        }

        deinit {
            nodes.deallocate()
            keys.deallocate()
            buckets.deallocate()
            below.deallocate()
        }
    }

    /// The tables as pointers, for one parse while the layout is held.
    struct View {
        let nodes: UnsafeMutablePointer<Node>
        let keys: UnsafeMutablePointer<UInt8>
        let buckets: UnsafeMutablePointer<Int32>
        let below: UnsafeMutablePointer<Int32>
        let tables: Unmanaged<Tables>
    }

    let tables: Tables
    let root: Level
    public let paths: [[String]]

    /// A layout for `paths` (each non-empty), slot `i` for `paths[i]`.
    /// - Parameter opening: slots whose value, when it is an object, is not built: the slot
    ///   holds an empty object, and the object's members fill the slots of the paths under it.
    ///   A reader learns a member is an object without the tree of it (a slot with no path
    ///   under it holds its whole value).
    public init(paths: [[String]], opening: Set<Int> = []) {
        self.paths = paths
        var tree: [TreeNode] = []
        for (slot, path) in paths.enumerated() where !path.isEmpty {
            JSONSlotLayout.insert(path[...], slot: slot, opens: opening.contains(slot), into: &tree)
        }
        var nodes: [Node] = [], keys: [UInt8] = [], buckets: [Int32] = [], below: [Int32] = []
        var relatives: [[(components: [String], slot: Int)]] = []
        var keyTexts: [String] = []
        // Each level's nodes side by side, those of one bucket next to each other (a bucket's
        // names are one run), a node's children as a level of their own after its level.
        func lay(_ given: [TreeNode]) -> Level {
            let level = given.enumerated().sorted {
                (JSONSlotLayout.bucket(of: $0.element.key), $0.offset) < (JSONSlotLayout.bucket(of: $1.element.key), $1.offset)
            }.map(\.element)
            let laid = Level(first: Int32(nodes.count), count: Int32(level.count), buckets: Int32(buckets.count))
            buckets += JSONSlotLayout.buckets(for: level.map(\.key))
            for node in level {
                nodes.append(Node(keyStart: Int32(keys.count), keyLength: Int32(node.key.count), slot: Int32(node.slot),
                                  children: Level(first: 0, count: 0, buckets: -1), belowStart: Int32(below.count),
                                  belowCount: Int32(node.slotsBelow.count), relative: node.relative.isEmpty ? -1 : Int32(relatives.count),
                                  opens: node.opens && !node.children.isEmpty))
                keys += node.key
                keyTexts.append(node.keyText)
                below += node.slotsBelow.map(Int32.init)
                if !node.relative.isEmpty { relatives.append(node.relative) }
            }
            for (offset, node) in level.enumerated() where !node.children.isEmpty {
                let children = lay(node.children)
                nodes[Int(laid.first) + offset].children = children
            }
            return laid
        }
        root = lay(tree)
        tables = Tables(nodes: nodes, keys: keys, buckets: buckets, below: below, relatives: relatives, keyTexts: keyTexts)
    }

    /// How many levels (objects with names of the layout) it has: a level's number is its
    /// buckets' place over `bucketCount`.
    public var levelCount: Int { tables.buckets.count / Self.bucketCount }

    /// A table of the member order this layout's records were met in, for one batch read on one
    /// thread (`JSONMemberOrder`).
    public func memberOrder() -> JSONMemberOrder { JSONMemberOrder(levels: levelCount) }

    /// A memory of the strings this layout's slots held, for one batch read on one thread
    /// (`JSONRepeatedTexts`).
    public func repeatedTexts() -> JSONRepeatedTexts { JSONRepeatedTexts(slots: paths.count) }

    /// The root's buckets (`buckets(for:)`), for tests.
    var rootBuckets: [Int32] {
        Array(UnsafeBufferPointer(start: tables.buckets.baseAddress! + Int(root.buckets), count: Self.bucketCount))
    }

    /// Buckets a member name falls in, by its length and its first and last bytes: a record's
    /// members are found by one look rather than a walk through the layout's names (the walk
    /// cost 1.3% of a replay's reading thread, most members being names no rule reads).
    static let bucketCount = 128

    @inline(__always) static func bucket(length: Int, first: UInt8, last: UInt8) -> Int {
        (length &* 31 &+ Int(first) &* 7 &+ Int(last)) & (bucketCount - 1)
    }

    /// The bucket of a name; -1 for the empty name, which is never bucketed.
    static func bucket(of key: [UInt8]) -> Int {
        key.isEmpty ? -1 : bucket(length: key.count, first: key[0], last: key[key.count - 1])
    }

    /// Per bucket: 0 when no name of `keys` falls in it, the index + 1 of the only one that
    /// does, and when several do, `-(1 + start << 16 + count)`: they are the run of `count`
    /// names from index `start` (`keys` come ordered by bucket). With a layout's hundred and
    /// fifty names (a Log Analytics row's columns), a walk of them all for a shared bucket was
    /// half of finding a row's members. A run past what that holds (a level of 32,767 names or
    /// more) is `walkTheLevel`: its names are found by walking the level.
    static func buckets(for keys: [[UInt8]]) -> [Int32] {
        var buckets = [Int32](repeating: 0, count: bucketCount)
        var runs: [Int: (start: Int, count: Int)] = [:]
        for (index, key) in keys.enumerated() where !key.isEmpty {
            let bucket = Self.bucket(of: key)
            let run = runs[bucket].map { ($0.start, $0.count + 1) } ?? (index, 1)
            runs[bucket] = run
            if run.1 == 1 {
                buckets[bucket] = index < Int(Int32.max) ? Int32(index + 1) : walkTheLevel
            } else {
                buckets[bucket] = run.0 < 0x7FFF && run.1 < 0xFFFF ? -Int32(1 + run.0 << 16 + run.1) : walkTheLevel
            }
        }
        return buckets
    }

    /// A bucket whose names are found by walking the whole level.
    static let walkTheLevel = Int32.min

    /// The names of a bucket that holds several, as `buckets(for:)` writes it: their first index
    /// in the level and how many.
    @inline(__always) static func run(_ entry: Int32) -> (start: Int, count: Int) {
        let code = Int(-entry) - 1
        return (code >> 16, code & 0xFFFF)
    }

    private static func insert(_ path: ArraySlice<String>, slot: Int, opens: Bool, into nodes: inout [TreeNode]) {
        let key = path.first!
        let position = nodes.firstIndex { $0.keyText == key } ?? {
            nodes.append(TreeNode(key: Array(key.utf8), keyText: key, slot: -1, children: [], slotsBelow: [], relative: []))
            return nodes.count - 1
        }()
        nodes[position].slotsBelow.append(slot)
        let rest = path.dropFirst()
        if rest.isEmpty {
            nodes[position].slot = slot
            nodes[position].opens = opens
        } else {
            nodes[position].relative.append((Array(rest), slot))
            insert(rest, slot: slot, opens: opens, into: &nodes[position].children)
        }
    }

    /// Runs `body` with the tables' pointers, valid inside it.
    func withView<T>(_ body: (View) throws -> T) rethrows -> T {
        try withExtendedLifetime(tables) {
            try body(View(nodes: tables.nodes.baseAddress!, keys: tables.keys.baseAddress!, buckets: tables.buckets.baseAddress!,
                          below: tables.below.baseAddress!, tables: Unmanaged.passUnretained(tables)))
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
    /// - Parameter order: the member order of the records read before (`JSONMemberOrder`, made
    ///   by `layout`), when the records are a batch read on one thread.
    public static func parseSlots(_ bytes: UnsafeRawBufferPointer, layout: JSONSlotLayout, untilFilled: Bool = false,
                                  order: JSONMemberOrder? = nil) throws -> [JSONValue?] {
        var slots = [JSONValue?](repeating: nil, count: layout.paths.count)
        _ = try slots.withUnsafeMutableBufferPointer { try parseSlots(bytes, layout: layout, untilFilled: untilFilled, into: $0, order: order) }
        return slots
    }

    /// Drops the values slots hold, each moved out where its type is known, leaving the memory
    /// uninitialised: `deinitialize()` of a run of `JSONValue?` goes through the generic runtime,
    /// a call for every slot (a fifth of reading a Log Analytics row).
    package static func dropSlots(_ slots: UnsafeMutableBufferPointer<JSONValue?>) {
        guard let base = slots.baseAddress else { return }
        for place in 0..<slots.count { _ = (base + place).move() }
    }

    /// `parseSlots` into slots lent by the caller, `layout.paths.count` of them, all nil.
    /// - Parameters:
    ///   - endings: when given, names the layout lacks, met in an object it reads (not one it
    ///     walks over or holds whole), are watched: the result says whether one was written
    ///     with an escape, held bytes past ASCII, or ended with one of `endings`. A reader that
    ///     maps names further (an export's columns) learns when one may be a name it reads,
    ///     spelt otherwise.
    ///   - order: the member order of the records read before (`JSONMemberOrder`, made by
    ///     `layout`), when the records are a batch read on one thread.
    ///   - texts: the strings the records read before held (`JSONRepeatedTexts`), likewise.
    /// - Returns: whether a watched name was met (false when none are watched).
    @discardableResult
    public static func parseSlots(_ bytes: UnsafeRawBufferPointer, layout: JSONSlotLayout, untilFilled: Bool = false,
                                  into slots: UnsafeMutableBufferPointer<JSONValue?>, watching endings: [[UInt8]]? = nil,
                                  order: JSONMemberOrder? = nil, texts: JSONRepeatedTexts? = nil) throws -> Bool {
        precondition(slots.count == layout.paths.count, "one slot per path")
        return try layout.withView { view in
            try JSONParser.parsing(bytes) { parser in
                parser.stopWhenFilled = untilFilled
                parser.watchedEndings = endings
                parser.order = order
                parser.texts = texts
                try parser.parseSlotDocument(view, layout.root, into: slots)
                return parser.watched
            }
        }
    }
}

extension JSONValue {
    /// `parseSlots` for the object that starts at `start` (after any whitespace) in bytes that
    /// go on past it: its slots, and the index just past its closing brace. Reads records that
    /// lie side by side without finding where each ends first.
    /// - Throws: `JSONParseError` as `parseSlots` does for the object; what follows it is not read.
    /// - Parameters:
    ///   - order: the member order of the records read before (`JSONMemberOrder`, made by
    ///     `layout`), when the records are a batch read on one thread.
    ///   - texts: the strings the records read before held (`JSONRepeatedTexts`, made by
    ///     `layout`), likewise.
    public static func parseSlots(_ bytes: UnsafeRawBufferPointer, from start: Int, layout: JSONSlotLayout, order: JSONMemberOrder? = nil,
                                  texts: JSONRepeatedTexts? = nil) throws -> (slots: [JSONValue?], end: Int) {
        var slots = [JSONValue?](repeating: nil, count: layout.paths.count)
        let end = try slots.withUnsafeMutableBufferPointer { try parseSlots(bytes, from: start, layout: layout, order: order, texts: texts, into: $0) }
        return (slots, end)
    }

    /// `parseSlots(_:from:layout:order:texts:)` into slots lent by the caller,
    /// `layout.paths.count` of them, all nil; the index just past the object's closing brace.
    public static func parseSlots(_ bytes: UnsafeRawBufferPointer, from start: Int, layout: JSONSlotLayout, order: JSONMemberOrder? = nil,
                                  texts: JSONRepeatedTexts? = nil, into slots: UnsafeMutableBufferPointer<JSONValue?>) throws -> Int {
        try parseSlots(bytes, from: start, layout: layout, watching: nil, order: order, texts: texts, into: slots).end
    }

    /// The same, names watched (when `endings` is given) as
    /// `parseSlots(_:layout:untilFilled:into:watching:order:texts:)` watches them: the index just
    /// past the object's closing brace, and whether a watched name was met.
    public static func parseSlots(_ bytes: UnsafeRawBufferPointer, from start: Int, layout: JSONSlotLayout, watching endings: [[UInt8]]?,
                                  order: JSONMemberOrder? = nil, texts: JSONRepeatedTexts? = nil,
                                  into slots: UnsafeMutableBufferPointer<JSONValue?>) throws -> (end: Int, watched: Bool) {
        precondition(slots.count == layout.paths.count, "one slot per path")
        return try layout.withView { view in
            try JSONParser.parsing(bytes) { parser in
                parser.index = start
                parser.watchedEndings = endings
                parser.order = order
                parser.texts = texts
                try parser.parseSlotObjectAt(view, layout.root, into: slots)
                return (parser.index, parser.watched)
            }
        }
    }
}

extension JSONParser {
    /// The object at `index` (after whitespace), leaving `index` just past it.
    mutating func parseSlotObjectAt(_ view: JSONSlotLayout.View, _ level: JSONSlotLayout.Level, into slots: UnsafeMutableBufferPointer<JSONValue?>) throws {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw error("expected an object") }
        try parseSlotObject(view, level, depth: 0, into: slots)
    }

    mutating func parseSlotDocument(_ view: JSONSlotLayout.View, _ level: JSONSlotLayout.Level, into slots: UnsafeMutableBufferPointer<JSONValue?>) throws {
        try parseSlotObjectAt(view, level, into: slots)
        if stopped { return }
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected text after the value") }
    }

    /// An object at `index`; members with a node fill slots, the rest are walked over.
    private mutating func parseSlotObject(_ view: JSONSlotLayout.View, _ level: JSONSlotLayout.Level, depth: Int, into slots: UnsafeMutableBufferPointer<JSONValue?>) throws {
        guard depth < Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth) levels") }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return }
        let levelNumber = Int(level.buckets) / JSONSlotLayout.bucketCount
        var place = 0
        repeat {
            try memberName()
            let found: Int
            if let order {
                // The name the record before had here, checked byte for byte; else found and learned.
                let start = index + 1
                if let hit = order.predicted(level: levelNumber, place: place, in: bytes, at: start) {
                    found = hit.node
                    index = hit.end
                } else {
                    found = try memberNode(view, level)
                    let name = UnsafeBufferPointer(rebasing: bytes[start..<index - 1])
                    // A watched name is not learned: met again, it would pass unwatched.
                    if !watched, !name.contains(UInt8(ascii: "\\")) { order.learn(level: levelNumber, place: place, name: name, node: found) }
                }
            } else {
                found = try memberNode(view, level)
            }
            place += 1
            try colon()
            if found >= 0 {
                let node = view.nodes[found]
                // A key met again replaces what it held, as in the parsed object.
                for place in Int(node.belowStart)..<Int(node.belowStart + node.belowCount) { slots[Int(view.below[place])] = nil }
                if node.slot < 0 || node.opens, index < bytes.count, bytes[index] == UInt8(ascii: "{") {
                    if node.slot >= 0 { slots[Int(node.slot)] = .object([:]) }
                    try parseSlotObject(view, node.children, depth: depth + 1, into: slots)
                } else if node.relative < 0 {
                    // Apart from the branch below although it begins alike: folded into one (the
                    // relatives read under a test), the reading thread took 4% more instructions
                    // (callgrind, 500 people's 30k sign-ins).
                    if node.slot >= 0 {
                        if let texts, index < bytes.count, bytes[index] == UInt8(ascii: "\""), texts.remembers(Int(node.slot)) {
                            slots[Int(node.slot)] = .string(try parseString(slot: Int(node.slot), texts))
                        } else {
                            slots[Int(node.slot)] = try parseValue(depth: depth + 1, .all)
                        }
                    } else {
                        _ = try parseValue(depth: depth + 1, .all)
                    }
                } else {
                    // A string where an object was looked for (a Log Analytics row's dynamic
                    // column written as JSON text) is remembered as any slot's string is.
                    let value: JSONValue
                    if node.slot >= 0, let texts, index < bytes.count, bytes[index] == UInt8(ascii: "\""), texts.remembers(Int(node.slot)) {
                        value = .string(try parseString(slot: Int(node.slot), texts))
                    } else {
                        value = try parseValue(depth: depth + 1, .all)
                    }
                    if node.slot >= 0 { slots[Int(node.slot)] = value }
                    for (components, slot) in view.tables.takeUnretainedValue().relatives[Int(node.relative)] {
                        slots[slot] = value.value(at: components)
                    }
                }
                if stopWhenFilled, depth == 0, !slots.contains(where: { $0 == nil }) { stopped = true; return }
            } else {
                try skipValue(depth: depth + 1)
            }
        } while try another(UInt8(ascii: "}"))
    }

    /// Reads a member name and finds its node by comparing bytes (the length first): its index in
    /// `view.nodes`, or -1. A name with escapes is decoded and compared as text. A name the
    /// layout lacks is looked at when names are watched (`watchedEndings`).
    private mutating func memberNode(_ view: JSONSlotLayout.View, _ level: JSONSlotLayout.Level) throws -> Int {
        let start = index + 1
        let found = try findMemberNode(view, level)
        if found < 0, !watched, let endings = watchedEndings {
            watched = Self.isWatched(UnsafeBufferPointer(rebasing: bytes[start..<index - 1]), endings: endings)
        }
        return found
    }

    /// Whether a name as written has an escape, a byte past ASCII, or one of `endings`.
    /// - Complexity: O(name), eight bytes at a time: every name of a row the layout lacks is asked.
    static func isWatched(_ name: UnsafeBufferPointer<UInt8>, endings: [[UInt8]]) -> Bool {
        guard let base = name.baseAddress, let last = name.last else { return false }
        var at = 0
        while at + 8 <= name.count {
            let word = UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self)
            let backslashes = word ^ 0x5C5C_5C5C_5C5C_5C5C
            if word & 0x8080_8080_8080_8080 != 0 || (backslashes &- 0x0101_0101_0101_0101) & ~backslashes & 0x8080_8080_8080_8080 != 0 { return true }
            at += 8
        }
        while at < name.count {
            if name[at] >= 0x80 || name[at] == UInt8(ascii: "\\") { return true }
            at += 1
        }
        for ending in endings where ending.last == last && name.count >= ending.count {
            if memcmp(base + name.count - ending.count, ending, ending.count) == 0 { return true }
        }
        return false
    }

    private mutating func findMemberNode(_ view: JSONSlotLayout.View, _ level: JSONSlotLayout.Level) throws -> Int {
        let start = index + 1
        let scan = JSONStringScan.quoteBackslashOrControl(in: UnsafeRawBufferPointer(bytes), from: start)
        let first = Int(level.first), end = first + Int(level.count)
        if scan < bytes.count, bytes[scan] == UInt8(ascii: "\"") {
            let length = scan - start
            index = scan + 1
            @inline(__always) func same(_ i: Int) -> Bool {
                let node = view.nodes[i]
                return Int(node.keyLength) == length
                    && (length == 0 || memcmp(view.keys + Int(node.keyStart), bytes.baseAddress! + start, length) == 0)
            }
            if length > 0 {
                let entry = view.buckets[Int(level.buckets) + JSONSlotLayout.bucket(length: length, first: bytes[start], last: bytes[scan - 1])]
                if entry == 0 { return -1 }
                if entry > 0 {
                    let i = first + Int(entry) - 1
                    return same(i) ? i : -1
                }
                if entry != JSONSlotLayout.walkTheLevel {
                    let run = JSONSlotLayout.run(entry)
                    for i in (first + run.start)..<(first + run.start + run.count) where same(i) { return i }
                    return -1
                }
            }
            for i in first..<end where same(i) { return i }
            return -1
        }
        let key = try parseString()
        let texts = view.tables.takeUnretainedValue().keyTexts
        for i in first..<end where texts[i] == key { return i }
        return -1
    }
}
