/// The stream level: documents separated by `---` and `...`.
extension YAMLParser {
    mutating func parseStream() throws -> [YAMLNode] {
        var documents: [YAMLNode] = []
        while true {
            skipBlankLines()
            if source.isAtEnd { break }
            if source.peek() == "%" {
                throw YAMLError.directive(at: source.mark)
            }
            if isAtDocumentMarker() && source.peek() == "." {
                // A document end marker with no document before it closes nothing.
                source.advance(by: 3)
                try finishLine()
                continue
            }
            documents.append(try parseDocument())
            skipBlankLines()
            if source.isAtEnd { break }
            if isAtDocumentMarker() {
                if source.peek() == "." {
                    source.advance(by: 3)
                    try finishLine()
                }
                continue
            }
            var indent = 0
            while source.peek(indent) == " " { indent += 1 }
            throw YAMLError.unexpectedAfterRoot(source.peek(indent), at: source.mark(ahead: indent))
        }
        return documents
    }

    /// One document, explicit (`---`) or bare; returns at the line that ends it.
    private mutating func parseDocument() throws -> YAMLNode {
        if isAtDocumentMarker() {
            source.advance(by: 3)
            return try parseNodeAfterIndicator(parentIndent: -1, owner: .document, emptyMark: source.mark)
        }
        guard let line = try nextContentLine() else {
            return emptyNode(at: source.mark)
        }
        source.advance(by: line.indent)
        return try parseBlockNode(indent: line.indent, parentIndent: -1, allowsCollection: true, tabBefore: false)
    }
}
