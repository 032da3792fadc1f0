import Foundation

/// The member names each level of a slot layout met in the record read last, place by place:
/// Graph writes every sign-in's members in one order, so a record's member at a place is most
/// likely the one the record before had there, and comparing its bytes with that name costs
/// less than finding where the name ends and looking it up (a third of reading a record was
/// finding its members).
///
/// What a place predicts is only ever checked, never trusted: a name that differs is found the
/// usual way (`JSONParser.memberNode`) and learned in its place. One reader at a time: made for
/// a batch of records read on one thread.
public final class JSONMemberOrder {
    /// Places learned per level, and the longest name learned.
    static let places = 64
    static let longest = 64

    private let levels: Int
    // Flat tables, level-major, `places` per level: the parser reads them for every member.
    private let lengths: UnsafeMutablePointer<Int32>
    private let nodes: UnsafeMutablePointer<Int32>
    private let names: UnsafeMutablePointer<UInt8>

    /// Places for a layout of `levels` levels (`JSONSlotLayout.levelCount`).
    init(levels: Int) {
        self.levels = max(levels, 1)
        let count = self.levels * JSONMemberOrder.places
        lengths = .allocate(capacity: count)
        lengths.initialize(repeating: -1, count: count)
        nodes = .allocate(capacity: count)
        nodes.initialize(repeating: -1, count: count)
        names = .allocate(capacity: count * JSONMemberOrder.longest)
        names.initialize(repeating: 0, count: count * JSONMemberOrder.longest)
    }

    deinit {
        lengths.deallocate()
        nodes.deallocate()
        names.deallocate()
    }

    /// The node of the member whose name starts at `start` (just after its opening quote) when
    /// it is the name learned at `place` of `level`, and the index just past its closing quote;
    /// nil otherwise.
    @inline(__always) func predicted(level: Int, place: Int, in bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> (node: Int, end: Int)? {
        guard place < JSONMemberOrder.places, level < levels else { return nil }
        let entry = level * JSONMemberOrder.places + place
        let length = Int(lengths[entry])
        guard length >= 0, start + length < bytes.count, bytes[start + length] == UInt8(ascii: "\"") else { return nil }
        guard JSONMemberOrder.same(UnsafeRawPointer(names + entry * JSONMemberOrder.longest), UnsafeRawPointer(bytes.baseAddress! + start),
                                   length, readable: bytes.count - start) else { return nil }
        return (Int(nodes[entry]), start + length + 1)
    }

    /// Whether `length` bytes at `learned` (a place's name, with room for `longest`) and at
    /// `read` (of which `readable` bytes may be read) are the same, eight at a time: a call to
    /// `memcmp` for each member's name cost more than the comparing.
    @inline(__always) static func same(_ learned: UnsafeRawPointer, _ read: UnsafeRawPointer, _ length: Int, readable: Int) -> Bool {
        var offset = 0
        while offset + 8 <= length {
            if learned.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != read.loadUnaligned(fromByteOffset: offset, as: UInt64.self) { return false }
            offset += 8
        }
        let rest = length - offset
        if rest == 0 { return true }
        // The last few bytes: a whole word read from each where the read bytes go on that far
        // (the learned name always has room), and the bytes past the name masked off.
        guard offset + 8 <= readable else { return memcmp(learned + offset, read + offset, rest) == 0 }
        let mask: UInt64 = (1 << UInt64(8 * rest)) - 1
        return (learned.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ read.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) & mask == 0
    }

    /// Learns `name` (a member name's bytes without escapes) at `place` of `level`, with its node.
    func learn(level: Int, place: Int, name: UnsafeBufferPointer<UInt8>, node: Int) {
        guard place < JSONMemberOrder.places, level < levels, name.count <= JSONMemberOrder.longest else { return }
        let entry = level * JSONMemberOrder.places + place
        if let source = name.baseAddress { (names + entry * JSONMemberOrder.longest).update(from: source, count: name.count) }
        lengths[entry] = Int32(name.count)
        nodes[entry] = Int32(node)
    }
}
