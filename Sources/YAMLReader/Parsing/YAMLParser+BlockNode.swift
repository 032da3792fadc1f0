/// Block nodes: what follows `---`, `- ` or `key:`, on the same line or on the lines below.
extension YAMLParser {
    /// The indicator a node follows, which decides what may start on the indicator's own line.
    enum Owner {
        case document, sequenceEntry, mappingValue

        var indicatorName: String {
            switch self {
            case .document: return "'---'"
            case .sequenceEntry: return "'- '"
            case .mappingValue: return "its key"
            }
        }
    }

    /// Reads the node after an indicator, or an empty node when there is none.
    /// - Parameters:
    ///   - parentIndent: the indentation of the collection that owns the indicator (-1 for a document).
    ///   - emptyMark: where an absent node is said to be.
    mutating func parseNodeAfterIndicator(parentIndent: Int, owner: Owner, emptyMark: YAMLMark) throws -> YAMLNode {
        let tabBefore = skipWhite()
        let c = source.peek()
        if c == "#" || c.isBreakOrEnd {
            try finishLine()
            guard let line = try nextContentLine(), !line.isDocumentMarker else {
                return emptyNode(at: emptyMark)
            }
            if line.indent > parentIndent {
                source.advance(by: line.indent)
                return try parseBlockNode(indent: line.indent, parentIndent: parentIndent, allowsCollection: true, tabBefore: false)
            }
            // A mapping's value may be a sequence at the mapping's own indentation.
            if line.indent == parentIndent && owner == .mappingValue && line.first == "-" && source.peek(line.indent + 1).isBlankOrEnd {
                source.advance(by: line.indent)
                return try parseBlockSequence(indent: line.indent)
            }
            return emptyNode(at: emptyMark)
        }
        // Only a sequence entry may hold a compact collection on its own line.
        return try parseBlockNode(
            indent: source.column - 1,
            parentIndent: parentIndent,
            allowsCollection: owner == .sequenceEntry,
            tabBefore: tabBefore,
            owner: owner
        )
    }

    /// Reads a block node whose first character is at the position.
    /// - Parameters:
    ///   - indent: the node's column minus one: the indentation a collection starting here would have.
    ///   - parentIndent: the owner's indentation, which continuation lines of a scalar must exceed.
    ///   - allowsCollection: false when the node shares its line with `key:` or `---`.
    ///   - tabBefore: a tab separated the node from its indicator, which makes a collection's indentation unknowable.
    mutating func parseBlockNode(
        indent: Int, parentIndent: Int, allowsCollection: Bool, tabBefore: Bool, owner: Owner = .sequenceEntry
    ) throws -> YAMLNode {
        let start = source.mark
        try rejectUnsupportedStart(flow: false)
        let c = source.peek()
        if isAtSequenceEntry {
            guard allowsCollection else {
                throw YAMLError.blockCollectionOnIndicatorLine(mapping: false, after: owner.indicatorName, at: start)
            }
            if tabBefore { throw YAMLError.tabIndentation(at: start) }
            return try parseBlockSequence(indent: indent)
        }
        if c == "|" || c == ">" {
            return try scanBlockScalar(parentIndent: parentIndent)
        }

        let node: YAMLNode
        let isPlain: Bool
        var plainText: [Unicode.Scalar] = []
        let startLine = source.line
        switch c {
        case "\"", "'":
            node = try scanQuoted(minSpaces: parentIndent + 1)
            isPlain = false
        case "[", "{":
            node = try parseFlowCollection(parentIndent: parentIndent)
            isPlain = false
        default:
            try checkPlainStart(flow: false)
            scanPlainLine(flow: false, into: &plainText)
            node = YAMLNode(.scalar(YAMLScalar(text: String(scalars: plainText), style: .plain)), at: start)
            isPlain = true
        }

        let afterNode = source.position
        skipWhite()
        if isAtValueIndicator(flow: false) {
            guard allowsCollection else {
                throw YAMLError.blockCollectionOnIndicatorLine(mapping: true, after: owner.indicatorName, at: start)
            }
            if tabBefore { throw YAMLError.tabIndentation(at: start) }
            try checkKey(node, startLine: startLine)
            return try parseBlockMapping(indent: indent, firstKey: node)
        }
        source.position = afterNode

        if isPlain {
            try continuePlain(&plainText, minSpaces: parentIndent + 1, flow: false)
            try finishLine()
            return YAMLNode(.scalar(YAMLScalar(text: String(scalars: plainText), style: .plain)), at: start)
        }
        try finishLine()
        return node
    }

    /// Implicit keys are scalars on a single line.
    func checkKey(_ key: YAMLNode, startLine: Int) throws {
        guard case .scalar = key.kind else { throw YAMLError.nonScalarKey(at: key.mark) }
        if source.line != startLine { throw YAMLError.multiLineKey(at: key.mark) }
    }
}
