import Foundation

/// A JSON text that could not be read, with the byte offset of the problem.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var offset: Int
    public var message: String
    public var description: String { "invalid JSON at byte \(offset): \(message)" }
}

/// Reads JSON bytes straight into `JSONValue` (RFC 8259), keeping integers apart from fractions.
///
/// Written by hand because decoding through `Decodable` tries each type in turn and throws on
/// every miss, which made a 1,000-event Graph page take seconds. It reads through a buffer
/// pointer lent by the caller (`JSONParser.parsing`): through an array every byte read was
/// checked against its bounds and its storage.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    static let maxDepth = 512

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Runs `body` with a parser over `data`, valid only inside it.
    static func parsing<T>(_ data: Data, _ body: (inout JSONParser) throws -> T) rethrows -> T {
        try data.withUnsafeBytes { try parsing($0, body) }
    }

    /// Runs `body` with a parser over `bytes`, valid only inside it.
    static func parsing<T>(_ bytes: UnsafeRawBufferPointer, _ body: (inout JSONParser) throws -> T) rethrows -> T {
        var parser = JSONParser(bytes: bytes.bindMemory(to: UInt8.self))
        return try body(&parser)
    }

    /// What to build; values outside it are skipped (checked for structure only).
    var projection = JSONProjection.everything
    /// Slot parsing: stop once every slot holds a value (`parseSlots(untilFilled:)`).
    var stopWhenFilled = false
    var stopped = false
    /// Slot parsing: the member order of the records before (`JSONMemberOrder`).
    var order: JSONMemberOrder?
    /// Slot parsing: the strings the records before held (`JSONRepeatedTexts`).
    var texts: JSONRepeatedTexts?
    /// Slot parsing: names the layout lacks, met where it reads, are looked at for these
    /// endings, an escape and bytes past ASCII (`parseSlots(_:layout:untilFilled:into:watching:order:texts:)`), and
    /// `watched` says whether one had any.
    var watchedEndings: [[UInt8]]?
    var watched = false

    mutating func parseDocument() throws -> JSONValue {
        skipWhitespace()
        let value = try parseValue(depth: 0, projection.whole ? .all : .only(projection))
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected text after the value") }
        return value
    }

    func error(_ message: String) -> JSONParseError { JSONParseError(offset: index, message: message) }

    /// Steps over spaces, tabs and line breaks. Inlined: it is called around every name, colon
    /// and value, and as a call it cost more than its loop.
    @inline(__always) mutating func skipWhitespace() {
        // Every JSON whitespace byte is at most 0x20; most bytes met here are not whitespace.
        while index < bytes.count, bytes[index] <= 0x20, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
    }

    /// How much of a value to build: all of it, the members a projection names, or nothing
    /// (walked over for its structure: brackets, quotes, escapes, literals, numbers).
    enum Mode {
        case all
        case only(JSONProjection)
        case skip

        /// The mode for the member `key` of an object read in this mode.
        func member(_ key: String) -> Mode {
            switch self {
            case .all: return .all
            case .skip: return .skip
            case .only(let node):
                guard let child = node.children[key] else { return .skip }
                return child.whole ? .all : .only(child)
            }
        }
    }

    /// One value; in `.skip` mode the result is `.null` and is dropped by the caller.
    mutating func parseValue(depth: Int, _ mode: Mode = .all) throws -> JSONValue {
        guard depth < Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth) levels") }
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth, mode)
        case UInt8(ascii: "["): return try parseArray(depth: depth, mode)
        case UInt8(ascii: "\""):
            // A skipped string is not decoded, so its UTF-8 is not checked (nothing reads it).
            if case .skip = mode { try skipString(); return .null }
            return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    /// Steps to a member's name: its opening quote, after any whitespace.
    @inline(__always) mutating func memberName() throws {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
    }

    /// Steps over the colon after a member's name, and the whitespace around it.
    @inline(__always) mutating func colon() throws {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
        index += 1
        skipWhitespace()
    }

    /// Steps past what follows an object's member or an array's element: true after a comma
    /// (another follows), false after `close` (`}` or `]`).
    @inline(__always) mutating func another(_ close: UInt8) throws -> Bool {
        skipWhitespace()
        if index < bytes.count {
            if bytes[index] == UInt8(ascii: ",") { index += 1; return true }
            if bytes[index] == close { index += 1; return false }
        }
        let container = close == UInt8(ascii: "}") ? "an object" : "an array"
        guard index < bytes.count else { throw error("unexpected end of input in \(container)") }
        throw error("expected ',' or '\(Character(Unicode.Scalar(close)))' in \(container)")
    }

    /// Walks over one value as `parseValue` does in `.skip` mode (the same checks and errors),
    /// without handing a value back: most of a record's members are walked over.
    mutating func skipValue(depth: Int) throws {
        guard depth < Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth) levels") }
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return }
            repeat {
                try memberName()
                try skipString()
                try colon()
                try skipValue(depth: depth + 1)
            } while try another(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return }
            repeat {
                skipWhitespace()
                try skipValue(depth: depth + 1)
            } while try another(UInt8(ascii: "]"))
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try parseNumber()
        default: throw error("unexpected character")
        }
    }

    /// `true`, `false` or `null` (four or five bytes) at the index.
    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        // The first four bytes compared as one word: a sign-in holds a dozen nulls, and a loop
        // over the word's bytes cost about 90 instructions each.
        let first = UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt32.self)
        if first == UnsafeRawPointer(word.utf8Start).loadUnaligned(as: UInt32.self), count == 4 || bytes[index + 4] == word.utf8Start[4] {
            index += count
            return
        }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw error("unexpected character")
        }
        index += count
    }

    private mutating func parseObject(depth: Int, _ mode: Mode) throws -> JSONValue {
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object([:]) }
        // The members in a list first, the table then made at its size: grown a member at a
        // time, it was rehashed at every doubling (an export's small objects cost twice as much).
        var pairs: [(key: String, value: JSONValue)] = []
        pairs.reserveCapacity(8)
        repeat {
            try memberName()
            let key: String
            if case .skip = mode { try skipString(); key = "" } else { key = try parseString() }
            try colon()
            let memberMode = mode.member(key)
            let value = try parseValue(depth: depth + 1, memberMode)
            if case .skip = memberMode {} else { pairs.append((key, value)) }
        } while try another(UInt8(ascii: "}"))
        // A name met twice counts once, the last.
        var members = [String: JSONValue](minimumCapacity: pairs.count)
        for (key, value) in pairs { members[key] = value }
        return .object(members)
    }

    /// An array; under a projection the same node applies to every element.
    private mutating func parseArray(depth: Int, _ mode: Mode) throws -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        repeat {
            skipWhitespace()
            let item = try parseValue(depth: depth + 1, mode)
            if case .skip = mode {} else { items.append(item) }
        } while try another(UInt8(ascii: "]"))
        return .array(items)
    }

    mutating func skipString() throws {
        index += 1
        while index < bytes.count {
            index = JSONStringScan.quoteBackslashOrControl(in: UnsafeRawBufferPointer(bytes), from: index)
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { index += 1; return }
            if byte < 0x20 { throw error("a control character in a string") }
            index += 1
            guard index < bytes.count else { break }
            switch bytes[index] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                index += 1
            case UInt8(ascii: "u"):
                index += 1
                _ = try hex4()
            default:
                throw error("invalid escape")
            }
        }
        throw error("unterminated string")
    }

    mutating func parseString() throws -> String {
        index += 1
        // Most strings have no escapes: read them straight from the bytes.
        let scan = JSONStringScan.quoteBackslashOrControl(in: UnsafeRawBufferPointer(bytes), from: index)
        if scan < bytes.count, bytes[scan] == UInt8(ascii: "\"") {
            guard let text = JSONStringScan.text(UnsafeBufferPointer(rebasing: bytes[index..<scan])) else { throw error("invalid UTF-8 in a string") }
            index = scan + 1
            return text
        }
        // With escapes: the runs between them copied a stretch at a time and the escapes written
        // as UTF-8, straight into the string's storage. Appending each to a string's scalars,
        // byte by byte, cost 60 instructions a byte, and appending each run to a list a hundred
        // a run: a Log Analytics export's dynamic columns are JSON written as strings, an
        // escaped quote every few bytes, and were most of reading one.
        let raw = UnsafeRawBufferPointer(bytes)
        // Escapes only shorten what they stand for, so the text fits in the string's own bytes
        // (a string that does not end is refused before it is written past them).
        let capacity = (JSONStringScan.end(in: raw, contentsFrom: index) ?? bytes.count) - index
        return try String(unsafeUninitializedCapacity: max(capacity, 1)) { out in
            var length = 0
            var runStart = index
            func flush(_ end: Int) throws {
                guard end > runStart else { return }
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<end])
                if !JSONStringScan.isASCII(UnsafeRawBufferPointer(run)), String(validating: run, as: UTF8.self) == nil {
                    throw error("invalid UTF-8 in a string")
                }
                (out.baseAddress! + length).initialize(from: run.baseAddress!, count: run.count)
                length += run.count
            }
            func put(_ byte: UInt8) {
                out[length] = byte
                length += 1
            }
            while true {
                index = JSONStringScan.quoteBackslashOrControl(in: raw, from: index)
                guard index < bytes.count else { throw error("unterminated string") }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    try flush(index)
                    index += 1
                    return length
                }
                if byte < 0x20 { throw error("control character in a string") }
                try flush(index)
                index += 1
                guard index < bytes.count else { throw error("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): put(escape)
                case UInt8(ascii: "b"): put(0x08)
                case UInt8(ascii: "f"): put(0x0C)
                case UInt8(ascii: "n"): put(0x0A)
                case UInt8(ascii: "r"): put(0x0D)
                case UInt8(ascii: "t"): put(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("unpaired surrogate in a \\u escape")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in a \\u escape") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw error("unpaired surrogate in a \\u escape")
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                    UTF8.encode(scalar) { put($0) }
                default:
                    throw error("invalid escape")
                }
                runStart = index
            }
        }
    }

    /// The string at the index that fills `slot`: when it has no escapes, the one `texts`
    /// remembers for its bytes, else made and remembered; with escapes, read as `parseString`
    /// reads it.
    mutating func parseString(slot: Int, _ texts: JSONRepeatedTexts) throws -> String {
        let start = index + 1
        let scan = JSONStringScan.quoteBackslashOrControl(in: UnsafeRawBufferPointer(bytes), from: start)
        guard scan < bytes.count, bytes[scan] == UInt8(ascii: "\"") else {
            // With escapes: remembered by the bytes as written, which only the same string has.
            guard scan < bytes.count, bytes[scan] == UInt8(ascii: "\\"),
                  let end = JSONStringScan.end(in: UnsafeRawBufferPointer(bytes), contentsFrom: start) else { return try parseString() }
            let text = try texts.text(slot: slot, written: UnsafeBufferPointer(rebasing: bytes[start..<end - 1])) { try parseString() }
            index = end
            return text
        }
        let contents = UnsafeBufferPointer(rebasing: bytes[start..<scan])
        index = start
        guard let text = texts.text(slot: slot, contents, make: { JSONStringScan.text(contents) }) else { throw error("invalid UTF-8 in a string") }
        index = scan + 1
        return text
    }

    private mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in a \\u escape")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    /// Powers of ten a double holds exactly.
    private static let exactPowersOfTen: [Double] = (0...22).map { (0..<$0).reduce(1.0) { product, _ in product * 10 } }

    /// The double a JSON number's text (already checked) names, when its digits make an integer
    /// of at most 2^53 scaled by at most 10^22 either way, or an integer of up to 19 digits
    /// divided by at most 10^19; nil otherwise (then `Double(text)`).
    ///
    /// Clinger's fast path: both the integer and the power of ten are exact doubles, so one IEEE
    /// division or multiplication rounds the quotient exactly as a correctly rounded `strtod`
    /// does. Coordinates are parsed for every located sign-in, and `Double(String)` cost about
    /// 1,600 instructions each (a twenty-fifth of a replay's reading thread). Graph writes them
    /// with 16 or 17 digits (47.68050003051758), past 2^53: those go by `nearestQuotient`.
    static func exactDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { index += 1 }
        var mantissa: UInt64 = 0
        var scale = 0
        var fraction = false
        while index < text.count {
            // Eight digits at once where eight follow and the mantissa has room for them: a
            // coordinate's 16 or 17 digits went one by one (`eightDigits`).
            if index + 8 <= text.count, mantissa <= 100_000_000_000,
               let eight = eightDigits(UnsafeRawPointer(text.baseAddress! + index).loadUnaligned(as: UInt64.self)) {
                mantissa = mantissa * 100_000_000 + eight
                if fraction { scale -= 8 }
                index += 8
                continue
            }
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                fraction = true
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                // Up to 19 digits: one more could overflow.
                guard mantissa <= (UInt64.max - 9) / 10 else { return nil }
                mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
                if fraction { scale -= 1 }
            } else {
                break
            }
            index += 1
        }
        if index < text.count {
            // An exponent: `e` or `E`, a sign, digits (checked by the parser).
            index += 1
            var exponentNegative = false
            if text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                exponentNegative = text[index] == UInt8(ascii: "-")
                index += 1
            }
            var exponent = 0
            while index < text.count {
                exponent = exponent * 10 + Int(text[index] - UInt8(ascii: "0"))
                guard exponent <= 1_000 else { return nil }
                index += 1
            }
            scale += exponentNegative ? -exponent : exponent
        }
        let magnitude: Double
        if mantissa <= 1 << 53, scale >= -22, scale <= 22 {
            magnitude = scale < 0 ? Double(mantissa) / exactPowersOfTen[-scale] : Double(mantissa) * exactPowersOfTen[scale]
        } else if mantissa > 1 << 53, scale < 0, scale >= -19 {
            magnitude = nearestQuotient(mantissa, dividedByPowerOfTen: -scale)
        } else {
            return nil
        }
        return negative ? -magnitude : magnitude
    }

    /// The number eight ASCII digits name (the first the most significant), read as one
    /// little-endian word; nil when any byte is not a digit. Three multiplications, each
    /// joining neighbouring digits, then pairs, then fours.
    @inline(__always) static func eightDigits(_ word: UInt64) -> UInt64? {
        // Every byte 0x30...0x39: its high nibble 3, and adding 6 leaves it 3.
        let highs: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
        guard word & highs == 0x3030_3030_3030_3030, (word &+ 0x0606_0606_0606_0606) & highs == 0x3030_3030_3030_3030 else { return nil }
        var value = word & 0x0F0F_0F0F_0F0F_0F0F
        value = (value &* (10 << 8 + 1)) >> 8
        value = ((value & 0x00FF_00FF_00FF_00FF) &* (100 << 16 + 1)) >> 16
        return ((value & 0x0000_FFFF_0000_FFFF) &* (10_000 << 32 + 1)) >> 32
    }

    /// 10^0 through 10^19, the powers of ten a UInt64 holds.
    private static let integerPowersOfTen: [UInt64] = (0...19).map { (0..<$0).reduce(1) { product, _ in product * 10 } }

    /// The double nearest to `mantissa / 10^k` (ties to even), for `mantissa` above 2^53 and
    /// `k` in 1...19: the quotient's top 64 bits and its remainder come from one exact 128-by-64
    /// bit division, which leaves nothing to doubt in the rounding (the bits past the 53 kept,
    /// and whether anything is left over).
    static func nearestQuotient(_ mantissa: UInt64, dividedByPowerOfTen k: Int) -> Double {
        let divisor = integerPowersOfTen[k]
        // With mantissa · 2^shift over the divisor between 2^62 and 2^64, one more bit at most
        // puts the quotient's top bit in place.
        var shift = 63 - (64 - mantissa.leadingZeroBitCount) + (64 - divisor.leadingZeroBitCount)
        func divide(_ shift: Int) -> (quotient: UInt64, remainder: UInt64) {
            let high = shift >= 64 ? mantissa << UInt64(shift - 64) : mantissa >> UInt64(64 - shift)
            let low = shift >= 64 ? 0 : mantissa << UInt64(shift)
            return divisor.dividingFullWidth((high: high, low: low))
        }
        var (quotient, remainder) = divide(shift)
        if quotient < 1 << 63 {
            shift += 1
            (quotient, remainder) = divide(shift)
        }
        // 53 bits kept; the 11 below decide, with the remainder as the sticky bit.
        var kept = quotient >> 11
        let dropped = quotient & 0x7FF
        if dropped > 0x400 || (dropped == 0x400 && (remainder != 0 || kept & 1 == 1)) { kept += 1 }
        var exponent = 11 - shift
        if kept == 1 << 53 {
            kept >>= 1
            exponent += 1
        }
        return Double(sign: .plus, exponent: exponent, significand: Double(kept))
    }

    private mutating func parseNumber() throws -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits() -> Int {
            let from = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            return index - from
        }
        let intStart = index
        let intDigits = digits()
        guard intDigits > 0 else { throw error("expected digits") }
        guard !(intDigits > 1 && bytes[intStart] == UInt8(ascii: "0")) else { throw error("leading zero in a number") }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error("expected digits after '.'") }
            integral = false
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error("expected digits in an exponent") }
            integral = false
        }
        if integral, index - intStart <= 18 {
            var value: Int64 = 0
            for position in intStart..<index { value = value * 10 + Int64(bytes[position] - UInt8(ascii: "0")) }
            return .int(bytes[start] == UInt8(ascii: "-") ? -value : value)
        }
        if !integral, let value = Self.exactDouble(UnsafeBufferPointer(rebasing: bytes[start..<index])) { return .double(value) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if integral, let value = Int64(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { throw error("number out of range") }
        return .double(value)
    }
}
