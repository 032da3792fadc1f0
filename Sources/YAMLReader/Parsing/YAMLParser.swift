/// A recursive-descent reader for the YAML subset, over `SourceText`.
///
/// Conventions every parse method keeps: a block-level method returns with the position at the
/// start of the first line it did not consume (or at the end); a flow-level or scalar method
/// returns right after the last character of its node.
struct YAMLParser {
    /// Deep enough for any real rule or config file, shallow enough for the smallest thread stack.
    static let nestingLimit = 256

    var source: SourceText
    var depth = 0

    init(_ text: String) throws {
        source = try SourceText(text)
    }

    /// The node for an absent value: a plain empty scalar, which the core schema reads as null.
    func emptyNode(at mark: YAMLMark) -> YAMLNode {
        YAMLNode(.scalar(YAMLScalar(text: "", style: .plain)), at: mark)
    }

    /// Counts one more level of nesting, failing past the limit.
    mutating func enterCollection(at mark: YAMLMark) throws {
        depth += 1
        if depth > Self.nestingLimit {
            throw YAMLError.nestingTooDeep(limit: Self.nestingLimit, at: mark)
        }
    }

    mutating func leaveCollection() {
        depth -= 1
    }
}

// MARK: - Lines

extension YAMLParser {
    /// Skips spaces and tabs on the current line.
    /// - Returns: whether a tab was among them.
    @discardableResult
    mutating func skipWhite() -> Bool {
        var sawTab = false
        while source.peek().isWhite {
            if source.peek() == "\t" { sawTab = true }
            source.advance()
        }
        return sawTab
    }

    /// Moves to the line break (or end) that closes the current line.
    mutating func skipToLineEnd() {
        while !source.peek().isBreakOrEnd {
            source.advance()
        }
    }

    /// True when the character before the position is white space or the position starts a line,
    /// which is what lets a `#` open a comment.
    var commentMayStartHere: Bool {
        source.isAtLineStart || source.peek(-1).isWhite
    }

    /// Ends the line after a node: only white space and a comment may remain on it.
    mutating func finishLine() throws {
        skipWhite()
        if source.peek() == "#" {
            guard commentMayStartHere else { throw YAMLError.commentNeedsSpace(at: source.mark) }
            skipToLineEnd()
        }
        let next = source.peek()
        if next == "\n" {
            source.advance()
        } else if next != SourceText.end {
            throw YAMLError.unexpectedAfterValue(next, at: source.mark)
        }
    }

    /// From a line start, skips lines that hold only white space or a comment.
    mutating func skipBlankLines() {
        while !source.isAtEnd {
            let lineStart = source.position
            skipWhite()
            if source.peek() == "#" { skipToLineEnd() }
            if source.peek() == "\n" {
                source.advance()
                continue
            }
            if source.isAtEnd { return }
            source.position = lineStart
            return
        }
    }

    /// True at a line start holding `---` or `...` followed by a blank or the end.
    func isAtDocumentMarker() -> Bool {
        guard source.isAtLineStart else { return false }
        let first = source.peek()
        guard first == "-" || first == "." else { return false }
        return source.peek(1) == first && source.peek(2) == first && source.peek(3).isBlankOrEnd
    }

    /// What the next line with content looks like, seen from its start.
    struct LineStart {
        /// Leading spaces.
        var indent: Int
        /// The first character after them.
        var first: Unicode.Scalar
        var isDocumentMarker: Bool
    }

    /// Skips blank and comment lines and describes the next line with content, leaving the position at its start.
    /// - Returns: nil at the end of input.
    /// - Throws: when a tab sits in the indentation of a line with content.
    mutating func nextContentLine() throws -> LineStart? {
        skipBlankLines()
        if source.isAtEnd { return nil }
        var indent = 0
        while source.peek(indent) == " " { indent += 1 }
        if source.peek(indent) == "\t" {
            throw YAMLError.tabIndentation(at: source.mark(ahead: indent))
        }
        return LineStart(indent: indent, first: source.peek(indent), isDocumentMarker: isAtDocumentMarker())
    }

    /// True at `- ` (or `-` before a break or the end): a block sequence entry.
    var isAtSequenceEntry: Bool {
        source.peek() == "-" && source.peek(1).isBlankOrEnd
    }

    /// True at a `:` that separates a key from its value.
    /// - Parameter adjacent: the key was quoted or a flow collection, so in flow context the value may follow directly.
    func isAtValueIndicator(flow: Bool, adjacent: Bool = false) -> Bool {
        guard source.peek() == ":" else { return false }
        let next = source.peek(1)
        if next.isBlankOrEnd { return true }
        return flow && (adjacent || next.isFlowIndicator)
    }
}

// MARK: - Node starts

extension YAMLParser {
    /// Rejects the node properties and indicators outside the subset: anchors, aliases, tags, complex keys.
    func rejectUnsupportedStart(flow: Bool) throws {
        let c = source.peek()
        switch c {
        case "&": throw YAMLError.anchor(at: source.mark)
        case "*": throw YAMLError.alias(at: source.mark)
        case "!": throw YAMLError.tag(at: source.mark)
        case "?":
            let next = source.peek(1)
            if next.isBlankOrEnd || (flow && next.isFlowIndicator) {
                throw YAMLError.complexKey(at: source.mark)
            }
        case ":":
            let next = source.peek(1)
            if next.isBlankOrEnd || (flow && next.isFlowIndicator) {
                throw YAMLError.emptyKey(at: source.mark)
            }
        default:
            break
        }
    }

    /// Checks that the character at the position may open a plain scalar (YAML's `ns-plain-first`).
    func checkPlainStart(flow: Bool) throws {
        try rejectUnsupportedStart(flow: flow)
        let c = source.peek()
        switch c {
        case "-":
            let next = source.peek(1)
            if next.isBlankOrEnd || (flow && next.isFlowIndicator) {
                throw flow ? YAMLError.blockSequenceInFlow(at: source.mark) : YAMLError.unexpected(c, at: source.mark)
            }
        case "@", "`":
            throw YAMLError.reserved(c, at: source.mark)
        case "%":
            throw YAMLError.cannotStartPlain(c, at: source.mark)
        case "|", ">":
            throw flow ? YAMLError.blockScalarInFlow(at: source.mark) : YAMLError.unexpected(c, at: source.mark)
        case ",", "[", "]", "{", "}", "#", "'", "\"", "\n", "\t", " ", SourceText.end:
            throw YAMLError.unexpected(c, at: source.mark)
        default:
            break
        }
    }
}
