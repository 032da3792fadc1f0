/// Every error the reader raises, worded in one place so messages stay consistent and testable.
extension YAMLError {
    /// How a character is shown inside a message: visible characters as themselves, the rest by code point.
    static func show(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case SourceText.end: return "end of input"
        case "\n": return "line break"
        case "\t": return "'\\t'"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F { return String(format: "U+%04X", scalar.value) }
            return "'\(Character(scalar))'"
        }
    }

    static func nonPrintable(_ scalar: Unicode.Scalar, at mark: YAMLMark) -> YAMLError {
        YAMLError(String(format: "character U+%04X is not allowed in YAML text", scalar.value), at: mark)
    }

    static func anchor(at mark: YAMLMark) -> YAMLError {
        YAMLError("anchors ('&name') are not supported", at: mark)
    }

    static func alias(at mark: YAMLMark) -> YAMLError {
        YAMLError("aliases ('*name') are not supported", at: mark)
    }

    static func tag(at mark: YAMLMark) -> YAMLError {
        YAMLError("tags ('!tag') are not supported", at: mark)
    }

    static func complexKey(at mark: YAMLMark) -> YAMLError {
        YAMLError("complex keys ('? ') are not supported", at: mark)
    }

    static func emptyKey(at mark: YAMLMark) -> YAMLError {
        YAMLError("a mapping key is missing before ':'", at: mark)
    }

    static func directive(at mark: YAMLMark) -> YAMLError {
        YAMLError("directives ('%YAML', '%TAG') are not supported", at: mark)
    }

    static func reserved(_ scalar: Unicode.Scalar, at mark: YAMLMark) -> YAMLError {
        YAMLError("\(show(scalar)) is reserved and cannot start a plain scalar", at: mark)
    }

    static func cannotStartPlain(_ scalar: Unicode.Scalar, at mark: YAMLMark) -> YAMLError {
        YAMLError("\(show(scalar)) cannot start a plain scalar; quote the value", at: mark)
    }

    static func unexpected(_ scalar: Unicode.Scalar, at mark: YAMLMark) -> YAMLError {
        YAMLError("unexpected \(show(scalar))", at: mark)
    }

    static func unexpectedAfterValue(_ scalar: Unicode.Scalar, at mark: YAMLMark) -> YAMLError {
        YAMLError("unexpected \(show(scalar)) after the value", at: mark)
    }

    static func commentNeedsSpace(at mark: YAMLMark) -> YAMLError {
        YAMLError("a comment needs white space before '#'", at: mark)
    }

    static func tabIndentation(at mark: YAMLMark) -> YAMLError {
        YAMLError("tabs are not allowed in indentation; use spaces", at: mark)
    }

    static func duplicateKey(_ key: String, firstLine: Int, at mark: YAMLMark) -> YAMLError {
        YAMLError("duplicate key '\(key)' (first defined on line \(firstLine))", at: mark)
    }

    static func badMappingIndentation(at mark: YAMLMark) -> YAMLError {
        YAMLError("bad indentation of a mapping entry", at: mark)
    }

    static func badSequenceIndentation(at mark: YAMLMark) -> YAMLError {
        YAMLError("bad indentation of a sequence entry", at: mark)
    }

    static func expectedKey(found scalar: Unicode.Scalar, at mark: YAMLMark) -> YAMLError {
        YAMLError("expected a mapping key, found \(show(scalar))", at: mark)
    }

    static func sequenceEntryInMapping(at mark: YAMLMark) -> YAMLError {
        YAMLError("expected a mapping key, found a sequence entry ('- ')", at: mark)
    }

    static func missingColon(at mark: YAMLMark) -> YAMLError {
        YAMLError("expected ':' after the mapping key", at: mark)
    }

    static func multiLineKey(at mark: YAMLMark) -> YAMLError {
        YAMLError("a mapping key must fit on one line", at: mark)
    }

    static func nonScalarKey(at mark: YAMLMark) -> YAMLError {
        YAMLError("only scalar mapping keys are supported, not collections", at: mark)
    }

    /// A block mapping or sequence that starts on the same line as `key:` or `---`.
    static func blockCollectionOnIndicatorLine(mapping: Bool, after indicator: String, at mark: YAMLMark) -> YAMLError {
        let what = mapping ? "a block mapping" : "a block sequence"
        return YAMLError("\(what) cannot start on the same line as \(indicator)", at: mark)
    }

    static func unterminatedQuote(double: Bool, at mark: YAMLMark) -> YAMLError {
        double
            ? YAMLError("unterminated double-quoted scalar: missing closing '\"'", at: mark)
            : YAMLError("unterminated single-quoted scalar: missing closing \"'\"", at: mark)
    }

    static func invalidEscape(_ scalar: Unicode.Scalar, at mark: YAMLMark) -> YAMLError {
        let shown = scalar == SourceText.end || scalar == "\n" ? show(scalar) : "'\\\(Character(scalar))'"
        return YAMLError("invalid escape \(shown) in a double-quoted scalar", at: mark)
    }

    static func badHexEscape(_ letter: Character, digits: Int, at mark: YAMLMark) -> YAMLError {
        YAMLError("escape '\\\(letter)' needs \(digits) hexadecimal digits", at: mark)
    }

    static func invalidCodePoint(_ value: UInt32, at mark: YAMLMark) -> YAMLError {
        YAMLError(String(format: "escape U+%04X is not a valid Unicode scalar value", value), at: mark)
    }

    static func documentMarkerInScalar(at mark: YAMLMark) -> YAMLError {
        YAMLError("a document marker cannot appear inside a quoted scalar", at: mark)
    }

    static func documentMarkerInFlow(at mark: YAMLMark) -> YAMLError {
        YAMLError("a document marker cannot appear inside a flow collection", at: mark)
    }

    static func underIndentedContinuation(at mark: YAMLMark) -> YAMLError {
        YAMLError("this line is not indented enough to continue the value above", at: mark)
    }

    static func underIndentedFlow(sequence: Bool, openedAt start: YAMLMark, at mark: YAMLMark) -> YAMLError {
        let what = sequence ? "flow sequence" : "flow mapping"
        let closing = sequence ? "']'" : "'}'"
        return YAMLError("this line is not indented enough to continue the \(what) opened at \(start); is a \(closing) missing?", at: mark)
    }

    static func unterminatedFlow(sequence: Bool, at mark: YAMLMark) -> YAMLError {
        sequence
            ? YAMLError("unterminated flow sequence: missing ']'", at: mark)
            : YAMLError("unterminated flow mapping: missing '}'", at: mark)
    }

    static func expectedFlowSeparator(sequence: Bool, found scalar: Unicode.Scalar, at mark: YAMLMark) -> YAMLError {
        let closing = sequence ? "']'" : "'}'"
        return YAMLError("expected ',' or \(closing), found \(show(scalar))", at: mark)
    }

    static func blockScalarInFlow(at mark: YAMLMark) -> YAMLError {
        YAMLError("block scalars ('|', '>') are not allowed inside flow collections", at: mark)
    }

    static func blockSequenceInFlow(at mark: YAMLMark) -> YAMLError {
        YAMLError("block sequence entries ('- ') are not allowed inside flow collections", at: mark)
    }

    static func badIndentationIndicator(at mark: YAMLMark) -> YAMLError {
        YAMLError("a block scalar's indentation indicator must be a single digit from 1 to 9", at: mark)
    }

    static func badBlockScalarHeader(_ scalar: Unicode.Scalar, at mark: YAMLMark) -> YAMLError {
        YAMLError("unexpected \(show(scalar)) in a block scalar header", at: mark)
    }

    static func topLevelIndentationIndicator(at mark: YAMLMark) -> YAMLError {
        YAMLError("indentation indicators are not supported on a top-level block scalar", at: mark)
    }

    static func overIndentedLeadingLine(at mark: YAMLMark) -> YAMLError {
        YAMLError("a leading empty line of a block scalar is indented more than its first line", at: mark)
    }

    static func unexpectedAfterRoot(_ scalar: Unicode.Scalar, at mark: YAMLMark) -> YAMLError {
        YAMLError("unexpected \(show(scalar)) after the document's root node (bad indentation?)", at: mark)
    }

    static func nestingTooDeep(limit: Int, at mark: YAMLMark) -> YAMLError {
        YAMLError("collections are nested more than \(limit) levels deep", at: mark)
    }

    static func documentCount(_ count: Int, at mark: YAMLMark) -> YAMLError {
        YAMLError("expected exactly one document, found \(count)", at: mark)
    }
}
