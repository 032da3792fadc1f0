/// The fixed ASCII classes: `\d \w \s` and POSIX `[:name:]`.
///
/// ASCII-only by choice, matching Rust's ASCII mode and RE2's default: a rule's
/// `\d` should not start accepting Arabic-Indic digits because the value is Unicode.
/// `\s` is [\t\n\v\f\r ], as in Rust's ASCII mode and POSIX [:space:] (RE2 omits \v).
enum PerlClass {
    static let digit = ScalarSet(ranges: [0x30...0x39])
    static let word = ScalarSet(ranges: [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    static let space = ScalarSet(ranges: [0x09...0x0D, 0x20...0x20])

    static func isWord(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x30...0x39, 0x41...0x5A, 0x5F, 0x61...0x7A: return true
        default: return false
        }
    }

    static func posix(named name: String) -> ScalarSet? {
        switch name {
        case "alnum": return ScalarSet(ranges: [0x30...0x39, 0x41...0x5A, 0x61...0x7A])
        case "alpha": return ScalarSet(ranges: [0x41...0x5A, 0x61...0x7A])
        case "ascii": return ScalarSet(ranges: [0x00...0x7F])
        case "blank": return ScalarSet(ranges: [0x09...0x09, 0x20...0x20])
        case "cntrl": return ScalarSet(ranges: [0x00...0x1F, 0x7F...0x7F])
        case "digit": return digit
        case "graph": return ScalarSet(ranges: [0x21...0x7E])
        case "lower": return ScalarSet(ranges: [0x61...0x7A])
        case "print": return ScalarSet(ranges: [0x20...0x7E])
        case "punct": return ScalarSet(ranges: [0x21...0x2F, 0x3A...0x40, 0x5B...0x60, 0x7B...0x7E])
        case "space": return space
        case "upper": return ScalarSet(ranges: [0x41...0x5A])
        case "word": return word
        case "xdigit": return ScalarSet(ranges: [0x30...0x39, 0x41...0x46, 0x61...0x66])
        default: return nil
        }
    }
}
