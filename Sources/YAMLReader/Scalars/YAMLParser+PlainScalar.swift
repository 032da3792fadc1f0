/// Plain (unquoted) scalars, which may run over several lines and fold them.
extension YAMLParser {
    /// Scans the rest of one line of a plain scalar, stopping before `: `, ` #`, the line end, and
    /// in flow context before `,[]{}`; trailing white space is left unread.
    mutating func scanPlainLine(flow: Bool, into text: inout [Unicode.Scalar]) {
        var pendingWhite: [Unicode.Scalar] = []
        var whiteStart: SourceText.Position?
        while true {
            let c = source.peek()
            if c.isWhite {
                if whiteStart == nil { whiteStart = source.position }
                pendingWhite.append(c)
                source.advance()
                continue
            }
            if c.isBreakOrEnd { break }
            if c == "#" && whiteStart != nil { break }
            if isAtValueIndicator(flow: flow) { break }
            if flow && c.isFlowIndicator { break }
            text.append(contentsOf: pendingWhite)
            pendingWhite.removeAll(keepingCapacity: true)
            whiteStart = nil
            text.append(c)
            source.advance()
        }
        if let whiteStart { source.position = whiteStart }
    }

    /// Adds the continuation lines of a plain scalar, folding the line breaks between them.
    /// - Parameters:
    ///   - minSpaces: leading spaces a continuation line needs (one more than the owner's indentation).
    /// - Throws: when a tab indents an empty line inside the scalar.
    mutating func continuePlain(_ text: inout [Unicode.Scalar], minSpaces: Int, flow: Bool) throws {
        while true {
            let endOfText = source.position
            skipWhite()
            guard source.peek() == "\n" else {
                source.position = endOfText
                return
            }
            var breaks = 0
            var tabbedEmptyLine: YAMLMark?
            var continues = false
            while source.peek() == "\n" {
                source.advance()
                breaks += 1
                var spaces = 0
                while source.peek(spaces) == " " { spaces += 1 }
                var white = spaces
                while source.peek(white).isWhite { white += 1 }
                let first = source.peek(white)
                if first == "\n" {
                    if spaces < minSpaces && white > spaces && tabbedEmptyLine == nil {
                        tabbedEmptyLine = source.mark(ahead: spaces)
                    }
                    source.advance(by: white)
                    continue
                }
                if first == SourceText.end || isAtDocumentMarker() || spaces < minSpaces || first == "#" {
                    break
                }
                source.advance(by: white)
                if isAtValueIndicator(flow: flow) || (flow && first.isFlowIndicator) {
                    break
                }
                continues = true
            }
            guard continues else {
                source.position = endOfText
                return
            }
            if let tabbedEmptyLine { throw YAMLError.tabIndentation(at: tabbedEmptyLine) }
            if breaks == 1 {
                text.append(" ")
            } else {
                text.append(contentsOf: repeatElement("\n" as Unicode.Scalar, count: breaks - 1))
            }
            scanPlainLine(flow: flow, into: &text)
        }
    }
}
