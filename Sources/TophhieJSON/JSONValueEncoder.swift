import Foundation

/// Encodes an `Encodable` value into a `JSONValue`, dates as seconds since 1970 (what
/// `JSONEncoder` with `.secondsSince1970` writes), so state files go through this package's
/// writer instead of Foundation's.
public struct JSONValueEncoder: Sendable {
    public init() {}

    /// The value as JSON.
    /// - Throws: `EncodingError.invalidValue` for a number JSON cannot hold (a non-finite
    ///   double, an unsigned integer beyond Int64).
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = EncodingNode()
        try root.encode(value, codingPath: [])
        return root.value
    }

    /// The value as compact JSON with sorted keys, the bytes `encode(value).canonicalBytes()`
    /// gives, written without building the `JSONValue` in between.
    /// - Throws: as `encode`.
    public func encodeBytes<T: Encodable>(_ value: T) throws -> [UInt8] {
        var out: [UInt8] = []
        try encode(value, pieces: { out += $0 })
        return out
    }

    /// The bytes `encodeBytes` gives, handed to `write` a piece at a time (about 64 KB each), so
    /// a large state goes to its file without being held whole as well.
    /// - Throws: as `encode`, or what `write` throws.
    public func encode<T: Encodable>(_ value: T, pieces write: ([UInt8]) throws -> Void) throws {
        let root = EncodingNode(writesAsItGoes: true)
        try root.encode(value, codingPath: [])
        var out: [UInt8] = []
        out.reserveCapacity(EncodingNode.piece)
        try root.write(into: &out) { full in
            try write(full)
            full.removeAll(keepingCapacity: true)
        }
        if !out.isEmpty { try write(out) }
    }
}

/// One value under construction; containers write into it by reference.
///
/// Writing bytes, a value whose `encode(to:)` has returned is written at once and its subtree
/// dropped, unless it has many members (its bytes would copy its members' all over again): a
/// state of tens of thousands of remembered sign-ins, as a tree of nodes, took three times the
/// memory of the poll that made it.
final class EncodingNode {
    private enum Kind { case unset, scalar(JSONValue), object, array, written([UInt8]) }
    private var kind = Kind.unset
    private var members: [String: EncodingNode] = [:]
    private var items: [EncodingNode] = []
    /// Whether finished values are written to bytes as they finish (`encodeBytes`); a tree
    /// built for its `JSONValue` keeps them.
    private let writesAsItGoes: Bool

    init(writesAsItGoes: Bool = false) { self.writesAsItGoes = writesAsItGoes }

    var value: JSONValue {
        switch kind {
        case .unset: return .object([:])
        case .scalar(let v): return v
        case .object: return .object(members.mapValues(\.value))
        case .array: return .array(items.map(\.value))
        // Only a node writing bytes finishes to bytes, and such a tree is never read as a value.
        case .written: preconditionFailure("a value written to bytes has no tree left to read")
        }
    }

    func set(_ v: JSONValue) { kind = .scalar(v) }

    /// How many bytes `write(into:flush:)` gathers before it flushes.
    static let piece = 1 << 16
    /// The most members a finished value may have and still be written on its own.
    private static let mostMembersWritten = 256

    /// What `value.canonicalBytes()` would give, appended to `out`.
    func write(into out: inout [UInt8]) {
        switch kind {
        case .unset: out.append(contentsOf: [0x7B, 0x7D])
        case .scalar(let v): JSONWriter.write(v, into: &out)
        case .array: JSONWriter.writeArray(items, into: &out) { $0.write(into: &$1) }
        case .object: JSONWriter.writeObject(members, into: &out) { $0.write(into: &$1) }
        case .written(let bytes): out.append(contentsOf: bytes)
        }
    }

    /// As `write(into:)`, handing `out` to `flush` whenever it holds a piece's worth.
    func write(into out: inout [UInt8], flush: (inout [UInt8]) throws -> Void) throws {
        switch kind {
        case .array: try JSONWriter.writeArray(items, into: &out) { try $0.write(into: &$1, flush: flush) }
        case .object: try JSONWriter.writeObject(members, into: &out) { try $0.write(into: &$1, flush: flush) }
        default: write(into: &out)
        }
        if out.count >= Self.piece { try flush(&out) }
    }

    /// Whether this value is bytes or a scalar: nothing under it is left to write.
    private var isWritten: Bool {
        switch kind {
        case .object, .array: return false
        case .unset, .scalar, .written: return true
        }
    }

    /// Writes a finished value's bytes and drops its subtree, when writing as it goes; one
    /// holding a value left open for its size stays open too, or it would copy it after all.
    private func finish() {
        guard writesAsItGoes else { return }
        switch kind {
        case .object where members.count <= Self.mostMembersWritten && members.values.allSatisfy(\.isWritten),
             .array where items.count <= Self.mostMembersWritten && items.allSatisfy(\.isWritten):
            var out: [UInt8] = []
            write(into: &out)
            kind = .written(out)
            members = [:]
            items = []
        default: break
        }
    }

    func member(_ key: String) -> EncodingNode {
        if case .object = kind {} else { kind = .object; members = [:] }
        let node = EncodingNode(writesAsItGoes: writesAsItGoes)
        members[key] = node
        return node
    }

    func existingMember(_ key: String) -> EncodingNode {
        if case .object = kind, let node = members[key] { return node }
        return member(key)
    }

    func appendItem() -> EncodingNode {
        if case .array = kind {} else { kind = .array; items = [] }
        let node = EncodingNode(writesAsItGoes: writesAsItGoes)
        items.append(node)
        return node
    }

    var count: Int { items.count }

    func beginObject() { if case .object = kind {} else { kind = .object; members = [:] } }
    func beginArray() { if case .array = kind {} else { kind = .array; items = [] } }

    // The coding path is an autoclosure: built only for an error or a nested container, not for
    // every scalar written.
    func encode<T: Encodable>(_ value: T, codingPath: @autoclosure () -> [any CodingKey]) throws {
        if T.self == Date.self {
            set(try EncodingNode.number((value as! Date).timeIntervalSince1970, codingPath()))
        } else if T.self == String.self {
            set(.string(value as! String))
        } else if T.self == Double.self {
            set(try EncodingNode.number(value as! Double, codingPath()))
        } else if T.self == Int.self {
            set(.int(Int64(value as! Int)))
        } else if T.self == Bool.self {
            set(.bool(value as! Bool))
        } else if T.self == [String: String].self {
            // The collections a state holds by the ten thousand, without a container per value.
            beginObject()
            for (key, text) in value as! [String: String] { member(key).set(.string(text)) }
            finish()
        } else if T.self == [String: Date].self {
            beginObject()
            for (key, date) in value as! [String: Date] {
                member(key).set(try EncodingNode.number(date.timeIntervalSince1970, codingPath() + [MemberKey(stringValue: key)]))
            }
            finish()
        } else if T.self == [String].self {
            beginArray()
            for text in value as! [String] { appendItem().set(.string(text)) }
            finish()
        } else {
            try value.encode(to: NodeEncoder(node: self, codingPath: codingPath()))
            finish()
        }
    }

    static func number(_ d: Double, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> JSONValue {
        guard d.isFinite else {
            throw EncodingError.invalidValue(d, .init(codingPath: codingPath(), debugDescription: "\(d) is not a JSON number"))
        }
        return .double(d)
    }

    static func integer<I: BinaryInteger>(_ i: I, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> JSONValue {
        guard let exact = Int64(exactly: i) else {
            throw EncodingError.invalidValue(i, .init(codingPath: codingPath(), debugDescription: "\(i) does not fit a 64-bit integer"))
        }
        return .int(exact)
    }
}

struct NodeEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.beginObject()
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.beginArray()
        return UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleNodeContainer(node: node, codingPath: codingPath) }
}

struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).set(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { node.member(key.stringValue).set(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { node.member(key.stringValue).set(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { node.member(key.stringValue).set(try EncodingNode.number(value, codingPath + [key])) }
    mutating func encode(_ value: Float, forKey key: Key) throws { node.member(key.stringValue).set(try EncodingNode.number(Double(value), codingPath + [key])) }
    mutating func encode(_ value: Int, forKey key: Key) throws { node.member(key.stringValue).set(.int(Int64(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { node.member(key.stringValue).set(.int(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { node.member(key.stringValue).set(try EncodingNode.integer(value, codingPath + [key])) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { node.member(key.stringValue).set(try EncodingNode.integer(value, codingPath + [key])) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { node.member(key.stringValue).set(try EncodingNode.integer(value, codingPath + [key])) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { node.member(key.stringValue).set(try EncodingNode.integer(value, codingPath + [key])) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { node.member(key.stringValue).set(try EncodingNode.integer(value, codingPath + [key])) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { node.member(key.stringValue).set(try EncodingNode.integer(value, codingPath + [key])) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { node.member(key.stringValue).set(try EncodingNode.integer(value, codingPath + [key])) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { node.member(key.stringValue).set(try EncodingNode.integer(value, codingPath + [key])) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try node.member(key.stringValue).encode(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = node.member(key.stringValue)
        child.beginObject()
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.member(key.stringValue)
        child.beginArray()
        return UnkeyedNodeContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.existingMember("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(node: node.existingMember(key.stringValue), codingPath: codingPath + [key]) }
}

struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    mutating func encodeNil() throws { node.appendItem().set(.null) }
    mutating func encode(_ value: Bool) throws { node.appendItem().set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.appendItem().set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.appendItem().set(try EncodingNode.number(value, codingPath)) }
    mutating func encode(_ value: Int) throws { node.appendItem().set(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { node.appendItem().set(.int(value)) }
    mutating func encode(_ value: Int8) throws { node.appendItem().set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode(_ value: Int16) throws { node.appendItem().set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode(_ value: Int32) throws { node.appendItem().set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode(_ value: UInt) throws { node.appendItem().set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode(_ value: UInt8) throws { node.appendItem().set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode(_ value: UInt16) throws { node.appendItem().set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode(_ value: UInt32) throws { node.appendItem().set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode(_ value: UInt64) throws { node.appendItem().set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode(_ value: Float) throws { node.appendItem().set(try EncodingNode.number(Double(value), codingPath)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try node.appendItem().encode(value, codingPath: codingPath) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = node.appendItem()
        child.beginObject()
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(node: child, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = node.appendItem()
        child.beginArray()
        return UnkeyedNodeContainer(node: child, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.appendItem(), codingPath: codingPath) }
}

struct SingleNodeContainer: SingleValueEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.set(.null) }
    mutating func encode(_ value: Bool) throws { node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.set(try EncodingNode.number(value, codingPath)) }
    mutating func encode(_ value: Float) throws { node.set(try EncodingNode.number(Double(value), codingPath)) }
    mutating func encode(_ value: Int) throws { node.set(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { node.set(.int(value)) }
    mutating func encode(_ value: UInt64) throws { node.set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode(_ value: Int8) throws { node.set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode(_ value: Int16) throws { node.set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode(_ value: Int32) throws { node.set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode(_ value: UInt) throws { node.set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode(_ value: UInt8) throws { node.set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode(_ value: UInt16) throws { node.set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode(_ value: UInt32) throws { node.set(try EncodingNode.integer(value, codingPath)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try node.encode(value, codingPath: codingPath) }
}
