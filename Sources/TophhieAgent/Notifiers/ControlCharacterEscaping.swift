import TophhieJSON

/// Makes attacker-controlled text (device and app names) safe to print.
///
/// A device named `"\u{1b}[2J"` or `"ok\nFAKE ALERT"` must not clear a terminal or forge a line,
/// and a bidi override must not reorder what an operator reads. Every such character is shown as a
/// visible escape instead.
public enum ControlCharacterEscaping {
    /// Whether a scalar is escaped: C0, DEL, C1, line and paragraph separators, bidi controls,
    /// zero-width characters and the byte-order mark.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F, 0x80...0x9F: return true
        case 0x061C: return true                      // Arabic letter mark
        case 0x200B...0x200F: return true             // zero-width spaces and joiners, LRM, RLM
        case 0x2028, 0x2029: return true              // line and paragraph separators
        case 0x202A...0x202E: return true             // bidi embeddings and overrides
        case 0x2060...0x2064, 0x2066...0x2069: return true  // word joiner, invisible operators, isolates
        case 0xFEFF: return true                      // byte-order mark / zero-width no-break space
        default: return false
        }
    }

    /// Whether `text` may hold a character `needsEscape` takes: each is a byte below 0x20 or DEL,
    /// or written with bytes of 0x80 and above. Seen in the bytes, without decoding scalars:
    /// most lines (every ASCII one) hold none, and decoding a replay's alert lines to find that
    /// out was a fifth of writing them.
    static func mayNeedEscape(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { mayNeedEscape(UnsafeRawBufferPointer($0)) } ?? true
    }

    /// `mayNeedEscape` over bytes, eight at a time: a byte by byte test was a twentieth of an
    /// alert-heavy replay.
    static func mayNeedEscape(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let high: UInt64 = 0x8080_8080_8080_8080, ones: UInt64 = 0x0101_0101_0101_0101
        var index = 0
        while index + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            // With no byte of 0x80 or above, a byte below 0x20 borrows into its top bit, and DEL
            // (0x7F) is the byte that a word XOR 0x7F…7F has as zero.
            if word & high != 0 { return true }
            if (word &- 0x20 &* ones) & ~word & high != 0 { return true }
            let del = word ^ (0x7F &* ones)
            if (del &- ones) & ~del & high != 0 { return true }
            index += 8
        }
        while index < bytes.count {
            if bytes[index] < 0x20 || bytes[index] >= 0x7F { return true }
            index += 1
        }
        return false
    }

    /// `text` with control characters as `\n`, `\r`, `\t` or `\u{…}` and `\` doubled, so the
    /// escaped form cannot be confused with a literal backslash sequence.
    /// - Complexity: O(n).
    public static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0) || $0 == "\\" }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out.append(contentsOf: #"\\"#.unicodeScalars)
            case "\n": out.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": out.append(contentsOf: #"\r"#.unicodeScalars)
            case "\t": out.append(contentsOf: #"\t"#.unicodeScalars)
            default:
                if needsEscape(scalar) {
                    out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
                } else {
                    out.append(scalar)
                }
            }
        }
        return String(out)
    }

    /// A JSON value whose strings carrying control, bidi or separator characters are shown as
    /// `escape` shows them. Receivers of the generic, PagerDuty and Alertmanager bodies often
    /// forward them through templates to chat or mail, where a raw U+202E or U+2028 does harm;
    /// strings without such characters (most) are left exactly as they were.
    public static func hardenStrings(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text):
            return text.unicodeScalars.contains(where: needsEscape) ? .string(escape(text)) : value
        case .array(let items):
            return .array(items.map(hardenStrings))
        case .object(let members):
            return .object(members.mapValues(hardenStrings))
        default:
            return value
        }
    }

    /// Compact JSON's bytes as one line: `hardenJSON` of their text with a line break after it,
    /// made text once when nothing needs escaping (every ASCII line).
    public static func hardenedJSONLine(_ json: [UInt8]) -> String {
        var line = json
        endHardenedJSONLine(&line, from: 0)
        return String(decoding: line, as: UTF8.self)
    }

    /// Makes the compact JSON written to `bytes` from `start` on one line, where it is: its
    /// text hardened (`hardenJSON`), only when a byte may need it, then a line break.
    public static func endHardenedJSONLine(_ bytes: inout [UInt8], from start: Int) {
        let mayNeed = bytes.withUnsafeBytes { mayNeedEscape(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        if mayNeed {
            let hardened = hardenJSON(String(decoding: bytes[start...], as: UTF8.self))
            bytes.replaceSubrange(start..., with: hardened.utf8)
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    /// JSON text with the characters JSON allows raw (DEL, C1, separators, bidi) turned into
    /// `\uXXXX`; the parsed value is unchanged. Used after `JSONEncoder`, which escapes only C0.
    /// Only characters inside string literals are escaped: the layout of pretty-printed JSON
    /// (newlines between tokens) is whitespace, and `\u000a` there would not be JSON.
    public static func hardenJSON(_ json: String) -> String {
        guard mayNeedEscape(json), json.unicodeScalars.contains(where: needsEscape) else { return json }
        var out = String.UnicodeScalarView()
        var inString = false, escaped = false
        for scalar in json.unicodeScalars {
            if inString {
                if escaped { escaped = false } else if scalar == "\\" { escaped = true } else if scalar == "\"" { inString = false }
            } else if scalar == "\"" {
                inString = true
            }
            if inString && needsEscape(scalar) {
                let hex = String(scalar.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
