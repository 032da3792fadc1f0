/// A small JSON reader for expected values in tests; it accepts several documents in a row,
/// as the YAML test suite's `in.json` files hold one value per YAML document.
enum TestJSON: Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    /// The number's literal text, so integers compare exactly.
    case number(String)
    case string(String)
    case array([TestJSON])
    case object([String: TestJSON])

    struct ParseError: Error, CustomStringConvertible {
        var offset: Int
        var description: String { "invalid JSON at byte \(offset)" }
    }

    /// Every JSON value in `text`, in order.
    static func values(_ text: String) throws -> [TestJSON] {
        var reader = Reader(bytes: Array(text.utf8))
        var values: [TestJSON] = []
        reader.skipWhite()
        while !reader.isAtEnd {
            values.append(try reader.value(depth: 0))
            reader.skipWhite()
        }
        return values
    }

    var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return String(value)
        case .number(let text): return text
        case .string(let text): return "\"\(text)\""
        case .array(let items): return "[" + items.map(\.description).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var isAtEnd: Bool { index >= bytes.count }

        func peek() -> UInt8 { index < bytes.count ? bytes[index] : 0 }

        mutating func skipWhite() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        mutating func expect(_ byte: UInt8) throws {
            guard peek() == byte else { throw ParseError(offset: index) }
            index += 1
        }

        mutating func literal(_ word: String, _ value: TestJSON) throws -> TestJSON {
            for byte in word.utf8 { try expect(byte) }
            return value
        }

        mutating func value(depth: Int) throws -> TestJSON {
            guard depth < 512 else { throw ParseError(offset: index) }
            skipWhite()
            switch peek() {
            case UInt8(ascii: "n"): return try literal("null", .null)
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "["):
                index += 1
                var items: [TestJSON] = []
                skipWhite()
                if peek() == UInt8(ascii: "]") { index += 1; return .array(items) }
                while true {
                    items.append(try value(depth: depth + 1))
                    skipWhite()
                    if peek() == UInt8(ascii: ",") { index += 1; continue }
                    try expect(UInt8(ascii: "]"))
                    return .array(items)
                }
            case UInt8(ascii: "{"):
                index += 1
                var members: [String: TestJSON] = [:]
                skipWhite()
                if peek() == UInt8(ascii: "}") { index += 1; return .object(members) }
                while true {
                    skipWhite()
                    let key = try string()
                    skipWhite()
                    try expect(UInt8(ascii: ":"))
                    members[key] = try value(depth: depth + 1)
                    skipWhite()
                    if peek() == UInt8(ascii: ",") { index += 1; continue }
                    try expect(UInt8(ascii: "}"))
                    return .object(members)
                }
            default:
                let begin = index
                while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
                guard index > begin else { throw ParseError(offset: index) }
                return .number(String(decoding: bytes[begin..<index], as: UTF8.self))
            }
        }

        mutating func string() throws -> String {
            try expect(UInt8(ascii: "\""))
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll()
            }
            while true {
                guard index < bytes.count else { throw ParseError(offset: index) }
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { break }
                guard byte == UInt8(ascii: "\\") else { raw.append(byte); continue }
                flush()
                let letter = peek()
                index += 1
                switch letter {
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "u"):
                    var unit = try hex4()
                    if (0xD800..<0xDC00).contains(unit), peek() == UInt8(ascii: "\\") {
                        index += 2
                        let low = try hex4()
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(unit) else { throw ParseError(offset: index) }
                    scalars.append(scalar)
                default:
                    throw ParseError(offset: index)
                }
            }
            flush()
            return String(scalars)
        }

        mutating func hex4() throws -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = Int(String(UnicodeScalar(peek())), radix: 16) else { throw ParseError(offset: index) }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }
    }
}
