/// Flow collections: `[a, b]` and `{a: 1, b: 2}`, possibly over several lines.
extension YAMLParser {
    /// Reads a flow sequence or mapping; the position is at `[` or `{` and ends after the closing bracket.
    /// - Parameter parentIndent: the enclosing block's indentation; continuation lines must exceed it.
    mutating func parseFlowCollection(parentIndent: Int) throws -> YAMLNode {
        let start = source.mark
        try enterCollection(at: start)
        defer { leaveCollection() }
        let isSequence = source.peek() == "["
        source.advance()
        let context = FlowContext(minSpaces: max(parentIndent + 1, 0), parentIndent: parentIndent, start: start, isSequence: isSequence)
        return isSequence ? try parseFlowSequence(context) : try parseFlowMapping(context)
    }

    struct FlowContext {
        var minSpaces: Int
        var parentIndent: Int
        var start: YAMLMark
        var isSequence: Bool
    }

    private mutating func parseFlowSequence(_ context: FlowContext) throws -> YAMLNode {
        var items: [YAMLNode] = []
        try skipFlowSeparation(context)
        while source.peek() != "]" {
            let keyLine = source.line
            let item = try parseFlowNode(context)
            let crossedLines = source.line != keyLine
            try skipFlowSeparation(context)
            if isAtValueIndicator(flow: true, adjacent: item.isJSONLike) {
                // `[key: value]` is a sequence holding a one-pair mapping.
                guard case .scalar = item.kind else { throw YAMLError.nonScalarKey(at: item.mark) }
                if crossedLines || source.line != keyLine { throw YAMLError.multiLineKey(at: item.mark) }
                source.advance()
                let value = try parseFlowValue(context, closing: "]")
                items.append(YAMLNode(.mapping([YAMLPair(key: item, value: value)]), at: item.mark))
            } else {
                items.append(item)
            }
            guard try skipFlowEntrySeparator(context, closing: "]") else { break }
        }
        source.advance()  // the ']'
        return YAMLNode(.sequence(items), at: context.start)
    }

    private mutating func parseFlowMapping(_ context: FlowContext) throws -> YAMLNode {
        var pairs: [YAMLPair] = []
        var firstLines: [String: Int] = [:]
        try skipFlowSeparation(context)
        while source.peek() != "}" {
            let key = try parseFlowNode(context)
            guard case .scalar(let scalar) = key.kind else { throw YAMLError.nonScalarKey(at: key.mark) }
            if let firstLine = firstLines[scalar.text] {
                throw YAMLError.duplicateKey(scalar.text, firstLine: firstLine, at: key.mark)
            }
            firstLines[scalar.text] = key.mark.line
            let keyEnd = source.mark
            try skipFlowSeparation(context)
            let value: YAMLNode
            if isAtValueIndicator(flow: true, adjacent: key.isJSONLike) {
                source.advance()
                value = try parseFlowValue(context, closing: "}")
            } else {
                value = emptyNode(at: keyEnd)
            }
            pairs.append(YAMLPair(key: key, value: value))
            guard try skipFlowEntrySeparator(context, closing: "}") else { break }
        }
        source.advance()  // the '}'
        return YAMLNode(.mapping(pairs), at: context.start)
    }

    /// Reads the value after a `:` inside a flow collection, or an empty node before `,` or the closing bracket.
    private mutating func parseFlowValue(_ context: FlowContext, closing: Unicode.Scalar) throws -> YAMLNode {
        let emptyMark = source.mark
        try skipFlowSeparation(context)
        if source.peek() == "," || source.peek() == closing {
            return emptyNode(at: emptyMark)
        }
        let value = try parseFlowNode(context)
        try skipFlowSeparation(context)
        return value
    }

    /// After an entry: consumes a `,` and returns true, or returns false before the closing bracket.
    private mutating func skipFlowEntrySeparator(_ context: FlowContext, closing: Unicode.Scalar) throws -> Bool {
        let c = source.peek()
        if c == "," {
            source.advance()
            try skipFlowSeparation(context)
            return source.peek() != closing
        }
        if c == closing { return false }
        throw YAMLError.expectedFlowSeparator(sequence: context.isSequence, found: c, at: source.mark)
    }

    /// Reads one node inside a flow collection.
    private mutating func parseFlowNode(_ context: FlowContext) throws -> YAMLNode {
        let start = source.mark
        switch source.peek() {
        case "[", "{":
            return try parseFlowCollection(parentIndent: context.parentIndent)
        case "\"", "'":
            return try scanQuoted(minSpaces: context.minSpaces)
        case ",", "]", "}":
            throw YAMLError.unexpected(source.peek(), at: start)
        default:
            try checkPlainStart(flow: true)
            var text: [Unicode.Scalar] = []
            scanPlainLine(flow: true, into: &text)
            try continuePlain(&text, minSpaces: context.minSpaces, flow: true)
            return YAMLNode(.scalar(YAMLScalar(text: String(scalars: text), style: .plain)), at: start)
        }
    }

    /// Skips white space, comments and line breaks inside a flow collection, checking each new line's indentation.
    private mutating func skipFlowSeparation(_ context: FlowContext) throws {
        while true {
            let c = source.peek()
            if c.isWhite {
                source.advance()
            } else if c == "#" {
                guard commentMayStartHere else { throw YAMLError.commentNeedsSpace(at: source.mark) }
                skipToLineEnd()
            } else if c == "\n" {
                source.advance()
                if isAtDocumentMarker() {
                    throw YAMLError.documentMarkerInFlow(at: source.mark)
                }
                var spaces = 0
                while source.peek(spaces) == " " { spaces += 1 }
                var white = spaces
                while source.peek(white).isWhite { white += 1 }
                let first = source.peek(white)
                if first.isBreakOrEnd || first == "#" {
                    source.advance(by: white)
                    continue
                }
                if spaces < context.minSpaces {
                    if white > spaces { throw YAMLError.tabIndentation(at: source.mark(ahead: spaces)) }
                    throw YAMLError.underIndentedFlow(sequence: context.isSequence, openedAt: context.start, at: source.mark(ahead: spaces))
                }
                source.advance(by: white)
            } else if c == SourceText.end {
                throw YAMLError.unterminatedFlow(sequence: context.isSequence, at: context.start)
            } else {
                return
            }
        }
    }
}

extension YAMLNode {
    /// Quoted scalars and flow collections: after them, a `:` may follow a key directly in flow context.
    var isJSONLike: Bool {
        switch kind {
        case .scalar(let scalar): return scalar.style == .singleQuoted || scalar.style == .doubleQuoted
        case .sequence, .mapping: return true
        }
    }
}
