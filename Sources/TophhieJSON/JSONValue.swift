import Foundation

/// A JSON value as Graph sent it, kept whole so rules can reach fields no struct names.
///
/// Integers and fractions are kept apart so `50126` prints as `50126`, never `50126.0`.
/// Objects are unordered; encoders that need stable bytes sort keys.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue {
    /// The value at a dotted path such as `location.geoCoordinates.latitude`.
    ///
    /// Returns `nil` when a step is absent and `.null` when the value is JSON `null`, so callers can
    /// tell "missing" from "null". A numeric step indexes into an array.
    /// - Complexity: O(number of path components).
    public func value(atPath path: String) -> JSONValue? {
        value(at: path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    /// The value at a path given as components.
    ///
    /// A number indexes an array (`riskEventTypes.0`); a name met at an array reaches into every
    /// element (`appliedConditionalAccessPolicies.result`): the values found there, arrays among
    /// them flattened, as one array, or nil when no element has one. So a condition on a field of
    /// an array of objects holds when any element's value satisfies it, as Sigma backends that
    /// flatten arrays read it.
    public func value(at components: [String]) -> JSONValue? {
        value(at: components[...])
    }

    private func value(at components: ArraySlice<String>) -> JSONValue? {
        var current = self
        for (offset, component) in zip(components.indices, components) {
            switch current {
            case .object(let members):
                guard let next = members[component] else { return nil }
                current = next
            case .array(let items):
                if let index = Int(component) {
                    guard items.indices.contains(index) else { return nil }
                    current = items[index]
                    continue
                }
                var found: [JSONValue] = []
                for item in items {
                    switch item.value(at: components[offset...]) {
                    case .array(let values)?: found += values
                    case let value?: found.append(value)
                    case nil: break
                    }
                }
                return found.isEmpty ? nil : .array(found)
            default:
                return nil
            }
        }
        return current
    }

    /// The member named `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The value as an integer, when it is an integer or a fraction with no fractional part.
    public var intValue: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    public var isString: Bool {
        if case .string = self { return true }
        return false
    }

    /// The scalar as text the way a person would write it (`50126`, `true`, `1.5`); nil for
    /// null, arrays and objects.
    public var scalarText: String? {
        switch self {
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return JSONValue.format(d)
        case .null, .array, .object: return nil
        }
    }

    static func format(_ d: Double) -> String {
        if d.rounded() == d && abs(d) < 1e15 { return String(Int64(d)) }
        return String(d)
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? container.decode(Int64.self) {
            self = .int(i)
        } else if let d = try? container.decode(Double.self) {
            self = .double(d)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else if let o = try? container.decode([String: JSONValue].self) {
            self = .object(o)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .int(let i): try container.encode(i)
        case .double(let d): try container.encode(d)
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}

extension JSONValue {
    /// Parses JSON text into a value.
    /// - Throws: `JSONParseError` with the byte offset when the bytes are not JSON.
    /// - Complexity: O(n) in the length of `data`.
    public static func parse(_ data: Data) throws -> JSONValue {
        try JSONParser.parsing(data) { try $0.parseDocument() }
    }

    /// `parse` over bytes lent for the call.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws -> JSONValue {
        try JSONParser.parsing(bytes) { try $0.parseDocument() }
    }

    /// Parses JSON text keeping only what `projection` names; the rest is checked for
    /// structure and dropped. The result equals `parse(data)` with the other members removed.
    /// - Throws: `JSONParseError` as `parse` does (a skipped string's UTF-8 is not checked).
    public static func parse(_ data: Data, keeping projection: JSONProjection) throws -> JSONValue {
        try data.withUnsafeBytes { try parse($0, keeping: projection) }
    }

    /// `parse(_:keeping:)` over bytes lent for the call.
    public static func parse(_ bytes: UnsafeRawBufferPointer, keeping projection: JSONProjection) throws -> JSONValue {
        try JSONParser.parsing(bytes) { parser in
            parser.projection = projection
            return try parser.parseDocument()
        }
    }

    /// Indented JSON with sorted keys, for people and `--json` output; `/` is not escaped.
    public func prettyText() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Compact JSON with sorted keys: the same value always gives the same bytes.
    public func canonicalData() -> Data {
        Data(canonicalBytes())
    }

    /// `canonicalData` as bytes.
    public func canonicalBytes() -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.write(self, into: &out)
        return out
    }
}
