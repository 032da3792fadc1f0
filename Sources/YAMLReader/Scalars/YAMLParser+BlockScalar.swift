/// Literal (`|`) and folded (`>`) block scalars with chomping and indentation indicators.
extension YAMLParser {
    private enum Chomping {
        case strip, clip, keep
    }

    /// One line of a block scalar's body: empty, or its text after the content indentation.
    private enum BodyLine {
        case empty
        case text([Unicode.Scalar])
    }

    /// Reads a block scalar; the position is at `|` or `>` and ends at the start of the first line after it.
    /// - Parameter parentIndent: the owner's indentation; content must be indented more.
    /// - Complexity: O(n) in the scalar's length.
    mutating func scanBlockScalar(parentIndent: Int) throws -> YAMLNode {
        let start = source.mark
        let isFolded = source.peek() == ">"
        source.advance()

        var chomping = Chomping.clip
        var explicitIndent: Int?
        var sawChomping = false
        while true {
            let c = source.peek()
            if (c == "-" || c == "+") && !sawChomping {
                chomping = c == "-" ? .strip : .keep
                sawChomping = true
            } else if c.isDecimalDigit && explicitIndent == nil {
                if c == "0" || source.peek(1).isDecimalDigit {
                    throw YAMLError.badIndentationIndicator(at: source.mark)
                }
                explicitIndent = Int(c.value - 0x30)
            } else {
                break
            }
            source.advance()
        }
        let hadWhite = source.peek().isWhite
        skipWhite()
        if source.peek() == "#" {
            guard hadWhite else { throw YAMLError.commentNeedsSpace(at: source.mark) }
            skipToLineEnd()
        }
        guard source.peek().isBreakOrEnd else {
            throw YAMLError.badBlockScalarHeader(source.peek(), at: source.mark)
        }
        if explicitIndent != nil && parentIndent < 0 {
            throw YAMLError.topLevelIndentationIndicator(at: start)
        }
        source.advance()

        let indent: Int
        if let explicitIndent {
            indent = parentIndent + explicitIndent
        } else {
            indent = try detectBlockIndent(parentIndent: parentIndent)
        }

        var lines: [BodyLine] = []
        while !source.isAtEnd {
            if indent == 0 && isAtDocumentMarker() { break }
            var spaces = 0
            while spaces < indent && source.peek(spaces) == " " { spaces += 1 }
            if spaces == indent {
                source.advance(by: spaces)
                var text: [Unicode.Scalar] = []
                while !source.peek().isBreakOrEnd {
                    text.append(source.peek())
                    source.advance()
                }
                lines.append(text.isEmpty ? .empty : .text(text))
                source.advance()
                continue
            }
            var white = spaces
            while source.peek(white).isWhite { white += 1 }
            if source.peek(white).isBreakOrEnd {
                if white > spaces {
                    throw YAMLError.tabIndentation(at: source.mark(ahead: spaces))
                }
                lines.append(.empty)
                source.advance(by: white + 1)
                continue
            }
            break
        }

        let text = isFolded ? foldedText(lines) : literalText(lines)
        var result = text.body
        switch chomping {
        case .strip:
            break
        case .clip:
            if text.hasContent { result.append("\n") }
        case .keep:
            if text.hasContent { result.append("\n") }
            result.append(contentsOf: repeatElement("\n" as Unicode.Scalar, count: text.trailingEmptyLines))
        }
        let style: YAMLScalarStyle = isFolded ? .folded : .literal
        return YAMLNode(.scalar(YAMLScalar(text: String(scalars: result), style: style)), at: start)
    }

    /// Finds the content indentation from the first non-empty line, without moving.
    /// - Throws: when a leading empty line is indented more than that first line.
    private func detectBlockIndent(parentIndent: Int) throws -> Int {
        var probe = self.source
        var widestEmpty = 0
        var widestEmptyMark = probe.mark
        while !probe.isAtEnd {
            var spaces = 0
            while probe.peek(spaces) == " " { spaces += 1 }
            if probe.peek(spaces).isBreakOrEnd {
                if spaces > widestEmpty {
                    widestEmpty = spaces
                    widestEmptyMark = probe.mark
                }
                probe.advance(by: spaces + 1)
                continue
            }
            if spaces <= parentIndent { break }
            if parentIndent < 0 && spaces == 0 && isDocumentMarker(in: probe) { break }
            if widestEmpty > spaces {
                throw YAMLError.overIndentedLeadingLine(at: widestEmptyMark)
            }
            return spaces
        }
        // No content line: the scalar is empty and only its empty lines matter.
        return max(parentIndent + 1, widestEmpty + 1)
    }

    private func isDocumentMarker(in probe: SourceText) -> Bool {
        let first = probe.peek()
        guard first == "-" || first == "." else { return false }
        return probe.peek(1) == first && probe.peek(2) == first && probe.peek(3).isBlankOrEnd
    }

    private func literalText(_ lines: [BodyLine]) -> (body: [Unicode.Scalar], hasContent: Bool, trailingEmptyLines: Int) {
        guard let last = lines.lastIndex(where: { if case .text = $0 { return true } else { return false } }) else {
            return ([], false, lines.count)
        }
        var body: [Unicode.Scalar] = []
        for (index, line) in lines[...last].enumerated() {
            if index > 0 { body.append("\n") }
            if case .text(let text) = line { body.append(contentsOf: text) }
        }
        return (body, true, lines.count - last - 1)
    }

    /// Folds lines: a single break between two ordinary lines becomes a space, breaks around
    /// more-indented lines (starting with white space) stay, and each empty line is one break.
    private func foldedText(_ lines: [BodyLine]) -> (body: [Unicode.Scalar], hasContent: Bool, trailingEmptyLines: Int) {
        guard let last = lines.lastIndex(where: { if case .text = $0 { return true } else { return false } }) else {
            return ([], false, lines.count)
        }
        var body: [Unicode.Scalar] = []
        var previousWasSpaced: Bool?
        var emptyLines = 0
        for line in lines[...last] {
            guard case .text(let text) = line else {
                emptyLines += 1
                continue
            }
            let isSpaced = text.first?.isWhite ?? false
            switch previousWasSpaced {
            case nil:
                body.append(contentsOf: repeatElement("\n" as Unicode.Scalar, count: emptyLines))
            case false? where !isSpaced:
                if emptyLines == 0 {
                    body.append(" ")
                } else {
                    body.append(contentsOf: repeatElement("\n" as Unicode.Scalar, count: emptyLines))
                }
            default:
                body.append(contentsOf: repeatElement("\n" as Unicode.Scalar, count: emptyLines + 1))
            }
            body.append(contentsOf: text)
            previousWasSpaced = isSpaced
            emptyLines = 0
        }
        return (body, true, lines.count - last - 1)
    }
}
