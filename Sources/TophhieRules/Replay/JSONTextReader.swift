import Foundation
import TophhieJSON

/// A strict JSON reader straight to `JSONValue`, for replay files of 100,000 sign-ins.
///
/// `JSONDecoder` decoding `JSONValue` tries each type in turn and was the slowest step of a
/// replay; this single pass over the bytes is about ten times faster and says where JSON breaks.
enum JSONTextReader {
    struct Failure: Error, CustomStringConvertible {
        var line: Int
        var column: Int
        var message: String
        var description: String { "line \(line), column \(column): \(message)" }
    }

    /// Parses one JSON value filling all of `data` (whitespace around it allowed).
    static func parse(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { raw -> JSONValue in
            var reader = Reader(bytes: raw.bindMemory(to: UInt8.self))
            reader.skipSpace()
            let value = try reader.value(depth: 0)
            reader.skipSpace()
            guard reader.index == reader.bytes.count else { throw reader.failure("unexpected text after the JSON value") }
            return value
        }
    }

    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        func failure(_ message: String) -> Failure {
            var line = 1, column = 1
            for i in 0..<min(index, bytes.count) {
                if bytes[i] == 0x0A { line += 1; column = 1 } else if bytes[i] & 0xC0 != 0x80 { column += 1 }
            }
            return Failure(line: line, column: column, message: message)
        }

        mutating func skipSpace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
        }

        mutating func value(depth: Int) throws -> JSONValue {
            guard depth < 512 else { throw failure("nested deeper than 512 levels") }
            guard index < bytes.count else { throw failure("the JSON ends where a value was expected") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [String: JSONValue] = [:]
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a quoted key") }
                    let key = try string()
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':' after a key") }
                    index += 1
                    skipSpace()
                    members[key] = try value(depth: depth + 1)
                    skipSpace()
                    guard index < bytes.count else { throw failure("the JSON ends inside an object") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                    throw failure("expected ',' or '}' in an object")
                }
            case UInt8(ascii: "["):
                index += 1
                var items: [JSONValue] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                while true {
                    skipSpace()
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard index < bytes.count else { throw failure("the JSON ends inside an array") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                    throw failure("expected ',' or ']' in an array")
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default:
                return try number()
            }
        }

        mutating func literal(_ word: StaticString) throws {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw failure("unexpected text") }
            for i in 0..<count where bytes[index + i] != word.utf8Start[i] { throw failure("unexpected text") }
            index += count
        }

        mutating func number() throws -> JSONValue {
            let start = index
            var isInteger = true
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digitsStart = index
            while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
            guard index > digitsStart else { throw failure("unexpected character where a value was expected") }
            if bytes[digitsStart] == 48 && index - digitsStart > 1 { throw failure("numbers may not start with 0") }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                let fraction = index
                while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
                guard index > fraction else { throw failure("a decimal point needs digits after it") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                let exponent = index
                while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
                guard index > exponent else { throw failure("an exponent needs digits") }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if isInteger, let integer = Int64(text) { return .int(integer) }
            guard let double = Double(text) else { throw failure("'\(text)' is not a number") }
            return .double(double)
        }

        mutating func string() throws -> String {
            index += 1  // opening quote
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { throw failure("control character inside a string") }
                index += 1
            }
            // Slow path: escapes.
            var buffer = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return String(decoding: buffer, as: UTF8.self)
                }
                if byte < 0x20 { throw failure("control character inside a string") }
                if byte != UInt8(ascii: "\\") {
                    buffer.append(byte)
                    index += 1
                    continue
                }
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): buffer.append(0x22)
                case UInt8(ascii: "\\"): buffer.append(0x5C)
                case UInt8(ascii: "/"): buffer.append(0x2F)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        index += 2
                        let low = try hex4()
                        if (0xDC00...0xDFFF).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            scalar = 0xFFFD
                        }
                    }
                    let unicode = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                    buffer.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw failure("unknown escape '\\\(Character(Unicode.Scalar(escape)))' in a string")
                }
            }
            throw failure("the JSON ends inside a string")
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw failure("'\\u' needs four hex digits") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case 48...57: digit = UInt32(byte - 48)
                case 65...70: digit = UInt32(byte - 55)
                case 97...102: digit = UInt32(byte - 87)
                default: throw failure("'\\u' needs four hex digits")
                }
                value = value * 16 + digit
                index += 1
            }
            return value
        }
    }
}
