/// Single- and double-quoted scalars: escapes, and line folding across lines.
extension YAMLParser {
    /// Reads a quoted scalar; the position is at its opening quote and ends after the closing one.
    /// - Parameter minSpaces: leading spaces each continuation line needs.
    /// - Throws: on a missing closing quote, an invalid escape, or a badly indented continuation line.
    mutating func scanQuoted(minSpaces: Int) throws -> YAMLNode {
        let start = source.mark
        let isDouble = source.peek() == "\""
        source.advance()
        var text: [Unicode.Scalar] = []
        // Where the run of unescaped white space at the end of `text` begins; folding drops it.
        var contentEnd = 0
        while true {
            let c = source.peek()
            switch c {
            case SourceText.end:
                throw YAMLError.unterminatedQuote(double: isDouble, at: start)
            case "'" where !isDouble:
                source.advance()
                if source.peek() == "'" {
                    text.append("'")
                    contentEnd = text.count
                    source.advance()
                    continue
                }
                return YAMLNode(.scalar(YAMLScalar(text: String(scalars: text), style: .singleQuoted)), at: start)
            case "\"" where isDouble:
                source.advance()
                return YAMLNode(.scalar(YAMLScalar(text: String(scalars: text), style: .doubleQuoted)), at: start)
            case "\\" where isDouble && source.peek(1) == "\n":
                // An escaped line break joins the lines without a space; white space before it stays.
                source.advance(by: 2)
                let emptyLines = try skipQuotedLinePrefixes(minSpaces: minSpaces, quoteStart: start, isDouble: isDouble)
                text.append(contentsOf: repeatElement("\n" as Unicode.Scalar, count: emptyLines))
                contentEnd = text.count
            case "\\" where isDouble:
                text.append(try scanEscape())
                contentEnd = text.count
            case "\n":
                text.removeSubrange(contentEnd...)
                source.advance()
                let emptyLines = try skipQuotedLinePrefixes(minSpaces: minSpaces, quoteStart: start, isDouble: isDouble)
                if emptyLines == 0 {
                    text.append(" ")
                } else {
                    text.append(contentsOf: repeatElement("\n" as Unicode.Scalar, count: emptyLines))
                }
                contentEnd = text.count
            default:
                text.append(c)
                source.advance()
                if !c.isWhite { contentEnd = text.count }
            }
        }
    }

    /// From a line start inside a quoted scalar, skips empty lines and the next line's indentation.
    /// - Returns: how many empty lines were skipped.
    private mutating func skipQuotedLinePrefixes(minSpaces: Int, quoteStart: YAMLMark, isDouble: Bool) throws -> Int {
        var emptyLines = 0
        while true {
            if isAtDocumentMarker() {
                throw YAMLError.documentMarkerInScalar(at: source.mark)
            }
            var spaces = 0
            while source.peek(spaces) == " " { spaces += 1 }
            var white = spaces
            while source.peek(white).isWhite { white += 1 }
            let first = source.peek(white)
            if spaces < minSpaces && white > spaces {
                throw YAMLError.tabIndentation(at: source.mark(ahead: spaces))
            }
            if first == "\n" {
                emptyLines += 1
                source.advance(by: white + 1)
                continue
            }
            if first == SourceText.end {
                throw YAMLError.unterminatedQuote(double: isDouble, at: quoteStart)
            }
            if spaces < minSpaces {
                // With no closing quote anywhere ahead, the real mistake is the missing quote.
                let quote: Unicode.Scalar = isDouble ? "\"" : "'"
                if !source.scalars[source.offset...].contains(quote) {
                    throw YAMLError.unterminatedQuote(double: isDouble, at: quoteStart)
                }
                throw YAMLError.underIndentedContinuation(at: source.mark(ahead: spaces))
            }
            source.advance(by: white)
            return emptyLines
        }
    }

    /// Reads one escape sequence; the position is at the backslash.
    private mutating func scanEscape() throws -> Unicode.Scalar {
        let mark = source.mark
        let letter = source.peek(1)
        let simple: Unicode.Scalar?
        switch letter {
        case "0": simple = "\u{0}"
        case "a": simple = "\u{7}"
        case "b": simple = "\u{8}"
        case "t", "\t": simple = "\t"
        case "n": simple = "\n"
        case "v": simple = "\u{B}"
        case "f": simple = "\u{C}"
        case "r": simple = "\r"
        case "e": simple = "\u{1B}"
        case " ": simple = " "
        case "\"": simple = "\""
        case "/": simple = "/"
        case "\\": simple = "\\"
        case "N": simple = "\u{85}"
        case "_": simple = "\u{A0}"
        case "L": simple = "\u{2028}"
        case "P": simple = "\u{2029}"
        default: simple = nil
        }
        if let simple {
            source.advance(by: 2)
            return simple
        }
        let digits: Int
        switch letter {
        case "x": digits = 2
        case "u": digits = 4
        case "U": digits = 8
        default: throw YAMLError.invalidEscape(letter, at: mark)
        }
        var value: UInt32 = 0
        for index in 0..<digits {
            guard let digit = source.peek(2 + index).hexDigitValue else {
                throw YAMLError.badHexEscape(Character(letter), digits: digits, at: mark)
            }
            value = value << 4 | digit
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw YAMLError.invalidCodePoint(value, at: mark)
        }
        source.advance(by: 2 + digits)
        return scalar
    }
}

extension Unicode.Scalar {
    /// The value of a hexadecimal digit, or nil.
    var hexDigitValue: UInt32? {
        switch value {
        case 0x30...0x39: return value - 0x30
        case 0x41...0x46: return value - 0x41 + 10
        case 0x61...0x66: return value - 0x61 + 10
        default: return nil
        }
    }
}
