import Foundation

/// Decodes a `Decodable` value from a `JSONValue`, dates from seconds since 1970 (what
/// `JSONDecoder` with `.secondsSince1970` reads), so state files are read by this package's
/// parser instead of Foundation's.
public struct JSONValueDecoder: Sendable {
    public init() {}

    /// The value the JSON describes.
    /// - Throws: `DecodingError` naming the coding path, as `JSONDecoder` does.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ValueDecoder.decode(type, from: value, codingPath: [])
    }
}

struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, codingPath: @autoclosure () -> [any CodingKey]) throws -> T {
        // Dates and the common scalars directly, without a decoder (and its path) per value.
        if type == Date.self { return Date(timeIntervalSince1970: try number(Double.self, value, codingPath())) as! T }
        if type == String.self { return try string(value, codingPath()) as! T }
        if type == Double.self { return try number(Double.self, value, codingPath()) as! T }
        if type == Int.self { return try integer(Int.self, value, codingPath()) as! T }
        if type == Bool.self { return try bool(value, codingPath()) as! T }
        // The collections a state holds by the ten thousand, without a container per value:
        // through `Codable` they were most of the time a poll took to read its state.
        if type == [String: String].self { return try members(value, String.self, codingPath()) { $0.stringValue } as! T }
        if type == [String: Date].self { return try members(value, Date.self, codingPath()) { $0.doubleValue.map(Date.init(timeIntervalSince1970:)) } as! T }
        if type == [String].self {
            guard case .array(let items) = value else { throw mismatch([Any].self, value, codingPath()) }
            return try items.enumerated().map { index, item in
                guard case .string(let text) = item else { throw mismatch(String.self, item, codingPath() + [UnkeyedValueContainer.Index(index)]) }
                return text
            } as! T
        }
        return try T(from: ValueDecoder(value: value, codingPath: codingPath()))
    }

    /// An object's members, each converted by `read`; one it gives nil for is a mismatch with
    /// `type`, named by its path.
    static func members<V>(_ value: JSONValue, _ type: V.Type, _ codingPath: @autoclosure () -> [any CodingKey], _ read: (JSONValue) -> V?) throws -> [String: V] {
        guard case .object(let members) = value else { throw mismatch([String: Any].self, value, codingPath()) }
        var result: [String: V] = [:]
        result.reserveCapacity(members.count)
        for (key, member) in members {
            guard let converted = read(member) else { throw mismatch(type, member, codingPath() + [MemberKey(stringValue: key)]) }
            result[key] = converted
        }
        return result
    }

    // The coding path is an autoclosure: built only for an error, not for every field read.
    static func mismatch(_ type: Any.Type, _ value: JSONValue, _ codingPath: @autoclosure () -> [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(type, .init(codingPath: codingPath(), debugDescription: "expected \(type), found \(value)"))
    }

    static func number<F: BinaryFloatingPoint>(_ type: F.Type, _ value: JSONValue, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> F {
        switch value {
        case .int(let i): return F(i)
        case .double(let d): return F(d)
        default: throw mismatch(type, value, codingPath())
        }
    }

    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ value: JSONValue, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> I {
        switch value {
        case .int(let i): if let exact = I(exactly: i) { return exact }
        case .double(let d): if let exact = I(exactly: d) { return exact }
        default: break
        }
        throw mismatch(type, value, codingPath())
    }

    static func string(_ value: JSONValue, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .string(let s) = value else { throw mismatch(String.self, value, codingPath()) }
        return s
    }

    static func bool(_ value: JSONValue, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let b) = value else { throw mismatch(Bool.self, value, codingPath()) }
        return b
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw ValueDecoder.mismatch([String: Any].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedValueContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw ValueDecoder.mismatch([Any].self, value, codingPath) }
        return UnkeyedValueContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValueContainer(value: value, codingPath: codingPath) }
}

struct KeyedValueContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap(Key.init(stringValue:)) }
    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for '\(key.stringValue)'"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { members[key.stringValue].map(\.isNull) ?? true }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try ValueDecoder.bool(member(key), codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try ValueDecoder.string(member(key), codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try ValueDecoder.number(type, member(key), codingPath + [key]) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try ValueDecoder.number(type, member(key), codingPath + [key]) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try ValueDecoder.integer(type, member(key), codingPath + [key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try ValueDecoder.integer(type, member(key), codingPath + [key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try ValueDecoder.integer(type, member(key), codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try ValueDecoder.integer(type, member(key), codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try ValueDecoder.integer(type, member(key), codingPath + [key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try ValueDecoder.integer(type, member(key), codingPath + [key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try ValueDecoder.integer(type, member(key), codingPath + [key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try ValueDecoder.integer(type, member(key), codingPath + [key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try ValueDecoder.integer(type, member(key), codingPath + [key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try ValueDecoder.integer(type, member(key), codingPath + [key]) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try ValueDecoder.decode(type, from: member(key), codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ValueDecoder(value: members["super"] ?? .null, codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder { ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key]) }
}

struct UnkeyedValueContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    struct Index: CodingKey {
        var stringValue: String { "\(intValue!)" }
        var intValue: Int?
        init(_ index: Int) { intValue = index }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    private mutating func next(_ type: Any.Type) throws -> (JSONValue, [any CodingKey]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [Index(currentIndex)], debugDescription: "the array has ended"))
        }
        defer { currentIndex += 1 }
        return (items[currentIndex], codingPath + [Index(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }
    mutating func decode(_ type: Bool.Type) throws -> Bool { let (v, p) = try next(type); return try ValueDecoder.bool(v, p) }
    mutating func decode(_ type: String.Type) throws -> String { let (v, p) = try next(type); return try ValueDecoder.string(v, p) }
    mutating func decode(_ type: Double.Type) throws -> Double { let (v, p) = try next(type); return try ValueDecoder.number(type, v, p) }
    mutating func decode(_ type: Float.Type) throws -> Float { let (v, p) = try next(type); return try ValueDecoder.number(type, v, p) }
    mutating func decode(_ type: Int.Type) throws -> Int { let (v, p) = try next(type); return try ValueDecoder.integer(type, v, p) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { let (v, p) = try next(type); return try ValueDecoder.integer(type, v, p) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { let (v, p) = try next(type); return try ValueDecoder.integer(type, v, p) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { let (v, p) = try next(type); return try ValueDecoder.integer(type, v, p) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let (v, p) = try next(type); return try ValueDecoder.integer(type, v, p) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { let (v, p) = try next(type); return try ValueDecoder.integer(type, v, p) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let (v, p) = try next(type); return try ValueDecoder.integer(type, v, p) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let (v, p) = try next(type); return try ValueDecoder.integer(type, v, p) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let (v, p) = try next(type); return try ValueDecoder.integer(type, v, p) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let (v, p) = try next(type); return try ValueDecoder.integer(type, v, p) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (v, p) = try next(type)
        return try ValueDecoder.decode(type, from: v, codingPath: p)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (v, p) = try next([String: Any].self)
        return try ValueDecoder(value: v, codingPath: p).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (v, p) = try next([Any].self)
        return try ValueDecoder(value: v, codingPath: p).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (v, p) = try next(Any.self)
        return ValueDecoder(value: v, codingPath: p)
    }
}

struct SingleValueContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try ValueDecoder.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try ValueDecoder.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try ValueDecoder.number(type, value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try ValueDecoder.number(type, value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try ValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try ValueDecoder.integer(type, value, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try ValueDecoder.decode(type, from: value, codingPath: codingPath) }
}

/// A member's name in a coding path, for the collections decoded and encoded without a container.
struct MemberKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
