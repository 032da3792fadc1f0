/// Text from sign-ins made safe for the page. Device, app and city names are chosen by whoever
/// signs in: every one is escaped for where it goes, its invisible and direction-changing
/// characters are shown as escapes (a right-to-left override cannot reorder what follows), and
/// it is cut to a length a cell can hold.
enum HTMLText {
    /// Longest text shown in one place; the rest is cut with `…`.
    static let longest = 120

    /// `text` for an element's content or a quoted attribute value: `&`, `<`, `>`, `"` and `'`
    /// as character references, controls and direction marks as `\u{…}` text.
    static func escape(_ text: String, limit: Int = HTMLText.longest) -> String {
        var out = ""
        var shown = 0
        for scalar in text.unicodeScalars {
            if shown >= limit {
                out += "…"
                break
            }
            shown += 1
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                if isHidden(scalar) {
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// Controls, direction marks and overrides, separators and other characters that change
    /// how the text around them is shown without being seen, and the invisible ones that make
    /// two different names look alike: the soft hyphen, the combining grapheme joiner, the
    /// Mongolian vowel separator, the Hangul fillers, variation selectors and Unicode tags.
    static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x206F, 0xFEFF, 0xFFF9...0xFFFB: return true
        case 0x00AD, 0x034F, 0x180B...0x180F, 0x115F, 0x1160, 0x3164, 0xFFA0, 0xFE00...0xFE0F, 0xE0000...0xE007F, 0xE0100...0xE01EF: return true
        default: return false
        }
    }
}
