import Foundation

/// Percent-decoding for paths, query strings and form bodies.
enum FormEncoding {
    /// Decodes `%XX` escapes (and `+` as space when asked); nil when an escape is malformed or the
    /// bytes are not UTF-8.
    static func percentDecode(_ text: String, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Splits `a=1&b=2` into decoded pairs. Strict mode returns nil on a malformed escape; lenient
    /// mode skips the pair instead.
    static func decodePairs(_ text: String, lenient: Bool = false) -> [(name: String, value: String)]? {
        var pairs: [(name: String, value: String)] = []
        for piece in text.split(separator: "&", omittingEmptySubsequences: true) {
            let halves = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = String(halves[0])
            let rawValue = halves.count > 1 ? String(halves[1]) : ""
            guard let name = percentDecode(rawName, plusIsSpace: true),
                  let value = percentDecode(rawValue, plusIsSpace: true)
            else {
                if lenient { continue }
                return nil
            }
            pairs.append((name, value))
        }
        return pairs
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
