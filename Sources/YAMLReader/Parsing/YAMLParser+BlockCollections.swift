/// Block mappings (`key: value` lines) and block sequences (`- item` lines).
extension YAMLParser {
    /// Reads a block mapping whose first key is already read; the position is at that key's `:`.
    mutating func parseBlockMapping(indent: Int, firstKey: YAMLNode) throws -> YAMLNode {
        try enterCollection(at: firstKey.mark)
        defer { leaveCollection() }
        var pairs: [YAMLPair] = []
        var firstLines: [String: Int] = [:]
        var key = firstKey
        while true {
            if case .scalar(let scalar) = key.kind {
                if let firstLine = firstLines[scalar.text] {
                    throw YAMLError.duplicateKey(scalar.text, firstLine: firstLine, at: key.mark)
                }
                firstLines[scalar.text] = key.mark.line
            }
            source.advance()  // the ':'
            let value = try parseNodeAfterIndicator(parentIndent: indent, owner: .mappingValue, emptyMark: source.mark)
            pairs.append(YAMLPair(key: key, value: value))

            guard let line = try nextContentLine(), !line.isDocumentMarker, line.indent >= indent else { break }
            if line.indent > indent {
                throw YAMLError.badMappingIndentation(at: source.mark(ahead: line.indent))
            }
            source.advance(by: indent)
            key = try parseBlockMappingKey()
        }
        return YAMLNode(.mapping(pairs), at: firstKey.mark)
    }

    /// Reads the key of a block mapping entry, leaving the position at its `:`.
    private mutating func parseBlockMappingKey() throws -> YAMLNode {
        let start = source.mark
        let startLine = source.line
        if isAtSequenceEntry {
            throw YAMLError.sequenceEntryInMapping(at: start)
        }
        try rejectUnsupportedStart(flow: false)
        let key: YAMLNode
        switch source.peek() {
        case "\"", "'":
            key = try scanQuoted(minSpaces: 0)
        case "[", "{":
            key = try parseFlowCollection(parentIndent: -1)
        case "|", ">":
            throw YAMLError.expectedKey(found: source.peek(), at: start)
        default:
            try checkPlainStart(flow: false)
            var text: [Unicode.Scalar] = []
            scanPlainLine(flow: false, into: &text)
            key = YAMLNode(.scalar(YAMLScalar(text: String(scalars: text), style: .plain)), at: start)
        }
        skipWhite()
        guard isAtValueIndicator(flow: false) else {
            if source.line != startLine { throw YAMLError.multiLineKey(at: start) }
            throw YAMLError.missingColon(at: source.mark)
        }
        try checkKey(key, startLine: startLine)
        return key
    }

    /// Reads a block sequence; the position is at its first `-`.
    mutating func parseBlockSequence(indent: Int) throws -> YAMLNode {
        let start = source.mark
        try enterCollection(at: start)
        defer { leaveCollection() }
        var items: [YAMLNode] = []
        while true {
            source.advance()  // the '-'
            items.append(try parseNodeAfterIndicator(parentIndent: indent, owner: .sequenceEntry, emptyMark: source.mark))

            guard let line = try nextContentLine(), !line.isDocumentMarker, line.indent >= indent else { break }
            if line.indent > indent {
                throw YAMLError.badSequenceIndentation(at: source.mark(ahead: line.indent))
            }
            guard line.first == "-" && source.peek(indent + 1).isBlankOrEnd else { break }
            source.advance(by: indent)
        }
        return YAMLNode(.sequence(items), at: start)
    }
}
