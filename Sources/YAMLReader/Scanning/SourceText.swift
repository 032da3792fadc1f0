/// The input as an array of Unicode scalars with a movable position that knows its line and column.
///
/// Working on an array keeps every look-ahead O(1); `String.Index` arithmetic would make the reader
/// quadratic on large files. Line breaks are normalised to `\n` up front (CR LF and lone CR both
/// count as one break, as YAML says), and the stream's printable-character rule is checked once here
/// so the scanners can use `\0` as an end-of-input sentinel.
struct SourceText {
    /// A saved position; restoring it undoes any look-ahead.
    struct Position {
        var offset: Int
        var line: Int
        var lineStart: Int
    }

    private(set) var scalars: [Unicode.Scalar]
    var position: Position

    /// The end-of-input sentinel; never a real character because NUL is rejected on input.
    static let end: Unicode.Scalar = "\u{0}"

    init(_ text: String) throws {
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(text.utf8.count)
        var line = 1
        var lineStart = 0
        var previousWasCR = false
        var isFirst = true
        for scalar in text.unicodeScalars {
            defer { isFirst = false }
            if isFirst && scalar == "\u{FEFF}" {
                // A byte-order mark may open the stream; it is not content.
                continue
            }
            if scalar == "\r" {
                scalars.append("\n")
                previousWasCR = true
            } else if scalar == "\n" && previousWasCR {
                // The LF of a CR LF pair: the CR already stood for the break.
                previousWasCR = false
                continue
            } else {
                previousWasCR = false
                if !Self.isPrintable(scalar) {
                    let column = scalars.count - lineStart + 1
                    throw YAMLError.nonPrintable(scalar, at: YAMLMark(line: line, column: column))
                }
                scalars.append(scalar)
            }
            if scalars.last == "\n" {
                line += 1
                lineStart = scalars.count
            }
        }
        self.scalars = scalars
        self.position = Position(offset: 0, line: 1, lineStart: 0)
    }

    /// YAML's `c-printable`: tab, line feed, the visible ASCII range, NEL and most of Unicode.
    static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D, 0x20...0x7E, 0x85, 0xA0...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF:
            return true
        default:
            return false
        }
    }

    var offset: Int { position.offset }
    var line: Int { position.line }
    /// The 1-based column of the current position.
    var column: Int { position.offset - position.lineStart + 1 }
    var mark: YAMLMark { YAMLMark(line: position.line, column: column) }
    var isAtEnd: Bool { position.offset >= scalars.count }
    /// True when the position is the first character of a line.
    var isAtLineStart: Bool { position.offset == position.lineStart }

    /// The character `ahead` places after the position, or `end` past the input.
    func peek(_ ahead: Int = 0) -> Unicode.Scalar {
        let index = position.offset + ahead
        return index >= 0 && index < scalars.count ? scalars[index] : Self.end
    }

    /// Moves one character forward, counting lines.
    mutating func advance() {
        guard position.offset < scalars.count else { return }
        if scalars[position.offset] == "\n" {
            position.line += 1
            position.lineStart = position.offset + 1
        }
        position.offset += 1
    }

    mutating func advance(by count: Int) {
        for _ in 0..<count { advance() }
    }

    /// The mark of a position, without moving there.
    func mark(of saved: Position) -> YAMLMark {
        YAMLMark(line: saved.line, column: saved.offset - saved.lineStart + 1)
    }

    /// The mark of the character `ahead` places further on the current line.
    func mark(ahead: Int) -> YAMLMark {
        YAMLMark(line: position.line, column: column + ahead)
    }
}

extension Unicode.Scalar {
    /// A space or a tab: YAML's `s-white`.
    var isWhite: Bool { self == " " || self == "\t" }
    /// White space, a line break or the end of input: what may follow an indicator like `- ` or `: `.
    var isBlankOrEnd: Bool { self == " " || self == "\t" || self == "\n" || self == SourceText.end }
    /// A line break or the end of input.
    var isBreakOrEnd: Bool { self == "\n" || self == SourceText.end }
    /// An ASCII digit.
    var isDecimalDigit: Bool { value >= 0x30 && value <= 0x39 }
    /// One of `,[]{}`, which end plain scalars inside flow collections.
    var isFlowIndicator: Bool { self == "," || self == "[" || self == "]" || self == "{" || self == "}" }
}
