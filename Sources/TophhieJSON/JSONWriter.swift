import Foundation

/// Writes `JSONValue` as compact JSON with keys sorted by their UTF-8 bytes, byte for byte what
/// Foundation's `JSONEncoder` writes with `.sortedKeys` and `.withoutEscapingSlashes`.
///
/// Written by hand because going through `Encodable` and `JSONEncoder` cost microseconds per
/// value: a tenth of a replay (every object a rule matches as text) and of every state commit.
package enum JSONWriter {
    /// The value's bytes appended to `out`.
    package static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let b): out.append(contentsOf: b ? Array("true".utf8) : Array("false".utf8))
        case .int(let i): writeInteger(i, into: &out)
        case .double(let d): writeDouble(d, into: &out)
        case .string(let s): writeString(s, into: &out)
        case .array(let items): writeArray(items, into: &out) { write($0, into: &$1) }
        case .object(let members): writeObject(members, into: &out) { write($0, into: &$1) }
        }
    }

    /// `[a,b,…]`, each item written by `item`.
    package static func writeArray<Item>(_ items: [Item], into out: inout [UInt8], _ item: (Item, inout [UInt8]) throws -> Void) rethrows {
        out.append(0x5B)
        for (index, element) in items.enumerated() {
            if index > 0 { out.append(0x2C) }
            try item(element, &out)
        }
        out.append(0x5D)
    }

    /// `{"k":v,…}` with keys sorted by their UTF-8 bytes (JSONEncoder's `.sortedKeys`), each
    /// value written by `value`.
    package static func writeObject<Member>(_ members: [String: Member], into out: inout [UInt8], _ value: (Member, inout [UInt8]) throws -> Void) rethrows {
        out.append(0x7B)
        let keys = members.keys.sorted(by: precedes)
        for (index, key) in keys.enumerated() {
            if index > 0 { out.append(0x2C) }
            writeString(key, into: &out)
            out.append(0x3A)
            try value(members[key]!, &out)
        }
        out.append(0x7D)
    }

    /// Whether `a` sorts before `b` by their UTF-8 bytes, compared as blocks of memory: the
    /// generic comparison of two `UTF8View`s was a tenth of writing an export's records.
    package static func precedes(_ a: String, _ b: String) -> Bool {
        let compared = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right -> Bool in
                let common = min(left.count, right.count)
                if common > 0, let l = left.baseAddress, let r = right.baseAddress {
                    let order = memcmp(l, r, common)
                    if order != 0 { return order < 0 }
                }
                return left.count < right.count
            }
        }
        if let compared, let compared { return compared }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// The integer's decimal digits, with `-` when negative: what `String(i)` holds, written
    /// without making that text first.
    package static func writeInteger(_ i: Int64, into out: inout [UInt8]) {
        withDigits(of: i) { out.append(contentsOf: $0) }
    }

    /// Runs `body` with the integer's text (`-` when negative, then its decimal digits), written
    /// on the stack.
    @inline(__always)
    package static func withDigits(of i: Int64, _ body: (UnsafeRawBufferPointer) -> Void) {
        // The magnitude as unsigned, so Int64.min has one too; its digits from the last.
        var rest = i.magnitude
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var start = 24
        withUnsafeMutableBytes(of: &text) { buffer in
            repeat {
                start -= 1
                buffer[start] = UInt8(truncatingIfNeeded: rest % 10) + 0x30
                rest /= 10
            } while rest > 0
            if i < 0 {
                start -= 1
                buffer[start] = 0x2D
            }
            body(UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// As `JSONEncoder`: the shortest round-tripping text, without a trailing `.0`; a value JSON
    /// cannot hold (infinity, NaN) is written as null, which is what `canonicalData` fell back to.
    package static func writeDouble(_ d: Double, into out: inout [UInt8]) {
        guard d.isFinite else { out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]); return }
        var text = d.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        out.append(contentsOf: text.utf8)
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Quotes and escapes: `"`, `\` and the C0 controls (`\b \f \n \r \t`, else `\u00XX`); the
    /// rest, `/` and non-ASCII included, as it is.
    package static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        // A native string's bytes are copied a stretch at a time between the bytes that need
        // escaping: byte by byte, a state file's long base64 member cost 60 instructions a byte.
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            var start = 0
            while start < raw.count {
                let stop = JSONStringScan.quoteBackslashOrControl(in: raw, from: start)
                if stop > start { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[start..<stop])) }
                guard stop < raw.count else { break }
                escape(raw[stop], into: &out)
                start = stop + 1
            }
        }
        if done == nil { for b in s.utf8 { escape(b, into: &out) } }
        out.append(0x22)
    }

    @inline(__always)
    private static func escape(_ b: UInt8, into out: inout [UInt8]) {
        var sequence: UInt64 = 0
        withUnsafeMutableBytes(of: &sequence) { raw in
            let count = writeEscaped(b, at: raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[..<count]))
        }
    }

    /// Writes the byte as a JSON string holds it (`\"`, `\\`, `\n`, `\u001f`…, or itself) at
    /// `target`, which has room for six bytes.
    /// - Returns: how many bytes were written.
    @inline(__always)
    package static func writeEscaped(_ b: UInt8, at target: UnsafeMutablePointer<UInt8>) -> Int {
        let short: UInt8
        switch b {
        case 0x22: short = 0x22
        case 0x5C: short = 0x5C
        case 0x08: short = 0x62
        case 0x0C: short = 0x66
        case 0x0A: short = 0x6E
        case 0x0D: short = 0x72
        case 0x09: short = 0x74
        case 0x00..<0x20:
            target[0] = 0x5C; target[1] = 0x75; target[2] = 0x30; target[3] = 0x30
            target[4] = hex[Int(b >> 4)]; target[5] = hex[Int(b & 0x0F)]
            return 6
        default:
            target[0] = b
            return 1
        }
        target[0] = 0x5C
        target[1] = short
        return 2
    }
}
