import Foundation
import TophhieRules

/// Comparisons of two strings' UTF-8 bytes, read in place: a native string's bytes are
/// contiguous, and stepping `String.UTF8View` through the generic `elementsEqual` cost about
/// 150 instructions a test (and `contains` copied both strings into arrays first).
///
/// Byte for byte, not as Swift compares strings (canonical equivalence): UTF-8 is
/// self-synchronising, so a byte match is a scalar match.
enum UTF8Bytes {
    /// The two strings' bytes, lent for the call (copied only if one is not contiguous).
    @inline(__always) private static func withBytes<T>(_ a: String, _ b: String, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> T) -> T {
        if let result = a.utf8.withContiguousStorageIfAvailable({ pa in
            b.utf8.withContiguousStorageIfAvailable { pb in body(UnsafeRawBufferPointer(pa), UnsafeRawBufferPointer(pb)) }
        }), let result { return result }
        return Array(a.utf8).withUnsafeBytes { pa in Array(b.utf8).withUnsafeBytes { pb in body(pa, pb) } }
    }

    /// Whether `a` and `b` hold the same bytes.
    static func same(_ a: String, _ b: String) -> Bool {
        // Written out rather than through `withBytes`: the engine asks this of every event's
        // group values, and the generic wrapper cost a sixth more.
        let count = a.utf8.count
        guard count == b.utf8.count else { return false }
        guard count > 0 else { return true }
        if let equal = a.utf8.withContiguousStorageIfAvailable({ pa in
            b.utf8.withContiguousStorageIfAvailable { pb in memcmp(pa.baseAddress!, pb.baseAddress!, count) == 0 }
        }), let equal { return equal }
        return a.utf8.elementsEqual(b.utf8)
    }

    /// Whether `text` starts with the bytes of `prefix`.
    static func hasPrefix(_ text: String, _ prefix: String) -> Bool {
        guard prefix.utf8.count <= text.utf8.count else { return false }
        return withBytes(text, prefix) { pt, pp in pp.isEmpty || memcmp(pt.baseAddress!, pp.baseAddress!, pp.count) == 0 }
    }

    /// Whether `text` ends with the bytes of `suffix`.
    static func hasSuffix(_ text: String, _ suffix: String) -> Bool {
        guard suffix.utf8.count <= text.utf8.count else { return false }
        return withBytes(text, suffix) { pt, ps in ps.isEmpty || memcmp(pt.baseAddress! + (pt.count - ps.count), ps.baseAddress!, ps.count) == 0 }
    }

    /// Whether the bytes of `needle` occur in `haystack` (an empty needle always does).
    /// - Complexity: O(n·m) worst case; each candidate start is found by `memchr`.
    static func contains(_ haystack: String, _ needle: String) -> Bool {
        guard needle.utf8.count <= haystack.utf8.count else { return false }
        return withBytes(haystack, needle) { h, n in
            guard let needleStart = n.baseAddress, !n.isEmpty else { return true }
            let first = Int32(n[0])
            var start = 0
            let lastStart = h.count - n.count
            while start <= lastStart {
                guard let found = memchr(h.baseAddress! + start, first, lastStart - start + 1) else { return false }
                let at = h.baseAddress!.distance(to: UnsafeRawPointer(found))
                if memcmp(h.baseAddress! + at, needleStart, n.count) == 0 { return true }
                start = at + 1
            }
            return false
        }
    }

    /// `pattern.matches(_:)`, its simple shapes compared in place.
    static func matches(_ pattern: WildcardPattern, _ subject: String) -> Bool {
        matches(pattern, folded: pattern.caseSensitive ? subject : subject.lowercased())
    }

    /// `pattern.matches(folded:)`, its simple shapes compared in place.
    static func matches(_ pattern: WildcardPattern, folded: String) -> Bool {
        switch pattern.shape {
        case .exact: return same(folded, pattern.literal)
        case .prefix: return hasPrefix(folded, pattern.literal)
        case .suffix: return hasSuffix(folded, pattern.literal)
        case .contains: return contains(folded, pattern.literal)
        case .general: return pattern.generalMatch(Array(folded.unicodeScalars))
        }
    }
}
