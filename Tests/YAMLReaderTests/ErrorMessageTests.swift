import Testing
import YAMLReader

/// Each kind of error, with where it must point (`1️⃣`) and its exact message.
@Suite(.timeLimit(.minutes(20))) struct ErrorMessageTests {
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var input: MarkedText
        var message: String

        init(_ name: String, _ input: String, _ message: String) {
            self.name = name
            self.input = MarkedText(input)
            self.message = message
        }

        var description: String { name }
    }

    static let cases: [Case] = [
        Case("anchor", "a: 1️⃣&x 1", "anchors ('&name') are not supported"),
        Case("alias", "a: 1\nb: 1️⃣*x", "aliases ('*name') are not supported"),
        Case("tag on a value", "a: 1️⃣!!str 1", "tags ('!tag') are not supported"),
        Case("tag in a sequence", "- 1️⃣!foo x", "tags ('!tag') are not supported"),
        Case("tag in a flow sequence", "[a, 1️⃣!t b]", "tags ('!tag') are not supported"),
        Case("complex key", "1️⃣? a\n: b", "complex keys ('? ') are not supported"),
        Case("complex key in flow", "{1️⃣? a: b}", "complex keys ('? ') are not supported"),
        Case("empty key", "1️⃣: a", "a mapping key is missing before ':'"),
        Case("directive", "1️⃣%YAML 1.2\n---\na", "directives ('%YAML', '%TAG') are not supported"),
        Case("tab indenting a key", "a:\n1️⃣\tb: 1", "tabs are not allowed in indentation; use spaces"),
        Case("tab after spaces", "a:\n  1️⃣\tb: 1", "tabs are not allowed in indentation; use spaces"),
        Case("tab before a compact mapping", "-\t1️⃣a: b", "tabs are not allowed in indentation; use spaces"),
        Case("tab indenting a quoted continuation", "a: \"x\n1️⃣\ty\"", "tabs are not allowed in indentation; use spaces"),
        Case("duplicate key", "a: 1\nb: 2\n1️⃣a: 3", "duplicate key 'a' (first defined on line 1)"),
        Case("duplicate nested key", "x:\n  k: 1\n\n  1️⃣k: 2", "duplicate key 'k' (first defined on line 2)"),
        Case("duplicate quoted key", "a: 1\n1️⃣'a': 2", "duplicate key 'a' (first defined on line 1)"),
        Case("duplicate flow key", "{a: 1, 1️⃣a: 2}", "duplicate key 'a' (first defined on line 1)"),
        Case("over-indented mapping entry", "a:\n  b: 1\n 1️⃣c: 2", "bad indentation of a mapping entry"),
        Case("over-indented sequence entry", "- \"a\"\n 1️⃣- b", "bad indentation of a sequence entry"),
        Case("under-indented root content", "  a: 1\n1️⃣b: 2", "unexpected 'b' after the document's root node (bad indentation?)"),
        Case("content after a root sequence", "- a\n1️⃣b: 1", "unexpected 'b' after the document's root node (bad indentation?)"),
        Case("sequence entry among keys", "a: 1\n1️⃣- b", "expected a mapping key, found a sequence entry ('- ')"),
        Case("missing colon", "a: 1\nb1️⃣\nc: 2", "expected ':' after the mapping key"),
        Case("mapping on a key's line", "a: 1️⃣b: c", "a block mapping cannot start on the same line as its key"),
        Case("sequence on a key's line", "a: 1️⃣- b", "a block sequence cannot start on the same line as its key"),
        Case("mapping on the document start line", "--- 1️⃣a: b", "a block mapping cannot start on the same line as '---'"),
        Case("multi-line key", "1️⃣\"a\n b\": c", "a mapping key must fit on one line"),
        Case("multi-line key in a flow sequence", "[1️⃣a\n b: c]", "a mapping key must fit on one line"),
        Case("collection as key", "1️⃣[a]: b", "only scalar mapping keys are supported, not collections"),
        Case("collection as flow key", "{a: 1, 1️⃣[b]: 2}", "only scalar mapping keys are supported, not collections"),
        Case("unterminated double quote", "a: 1️⃣\"abc\n  b: 1", "unterminated double-quoted scalar: missing closing '\"'"),
        Case("unterminated quote before the next key", "a: 1️⃣'abc\nb: 1", "unterminated single-quoted scalar: missing closing \"'\""),
        Case("unterminated single quote", "a: 1️⃣'abc", "unterminated single-quoted scalar: missing closing \"'\""),
        Case("unterminated flow sequence", "a: 1️⃣[1, 2", "unterminated flow sequence: missing ']'"),
        Case("unterminated flow mapping", "1️⃣{a: 1,\n b: 2", "unterminated flow mapping: missing '}'"),
        Case("invalid escape", #"a: "x1️⃣\qy""#, #"invalid escape '\q' in a double-quoted scalar"#),
        Case("short hex escape", #"a: "1️⃣\x4""#, #"escape '\x' needs 2 hexadecimal digits"#),
        Case("surrogate escape", #"a: "1️⃣\uD800""#, "escape U+D800 is not a valid Unicode scalar value"),
        Case("out-of-range escape", #"a: "1️⃣\U00110000""#, "escape U+110000 is not a valid Unicode scalar value"),
        Case("stray content after a quoted value", "a: \"x\" 1️⃣y", "unexpected 'y' after the value"),
        Case("stray colon after a plain value", "a: b\n  c1️⃣: d", "unexpected ':' after the value"),
        Case("adjacent colon in block context", "\"a\"1️⃣:b", "unexpected ':' after the value"),
        Case("comment without space", "a: \"x\"1️⃣#c", "a comment needs white space before '#'"),
        Case("reserved indicator", "a: 1️⃣@x", "'@' is reserved and cannot start a plain scalar"),
        Case("percent in a value", "a: 1️⃣%x", "'%' cannot start a plain scalar; quote the value"),
        Case("stray closing bracket", "a: 1️⃣]", "unexpected ']'"),
        Case("missing flow separator", "{a: 1 1️⃣]}", "expected ',' or '}', found ']'"),
        Case("missing sequence separator", "[a, \"b\" 1️⃣c]", "expected ',' or ']', found 'c'"),
        Case("double comma", "[a, 1️⃣, b]", "unexpected ','"),
        Case("block scalar in flow", "[1️⃣|]", "block scalars ('|', '>') are not allowed inside flow collections"),
        Case("block sequence in flow", "[1️⃣- a]", "block sequence entries ('- ') are not allowed inside flow collections"),
        Case("bad block scalar header", "a: |1️⃣x\n  y", "unexpected 'x' in a block scalar header"),
        Case("zero indentation indicator", "a: |1️⃣0\n  y", "a block scalar's indentation indicator must be a single digit from 1 to 9"),
        Case("two-digit indentation indicator", "a: >1️⃣12\n  y", "a block scalar's indentation indicator must be a single digit from 1 to 9"),
        Case("top-level indentation indicator", "--- 1️⃣|2\n  x", "indentation indicators are not supported on a top-level block scalar"),
        Case("over-indented leading empty line", "a: |\n1️⃣    \n  x", "a leading empty line of a block scalar is indented more than its first line"),
        Case("tab in a block scalar's empty line", "a: |\n  x\n1️⃣\t\n  y", "tabs are not allowed in indentation; use spaces"),
        Case("document marker in a quoted scalar", "\"a\n1️⃣---\nb\"", "a document marker cannot appear inside a quoted scalar"),
        Case("document marker in a flow collection", "[a,\n1️⃣---\n]", "a document marker cannot appear inside a flow collection"),
        Case("under-indented quoted continuation", "a: \"x\n1️⃣y\"", "this line is not indented enough to continue the value above"),
        Case("under-indented flow continuation", "a: [x,\n1️⃣y]", "this line is not indented enough to continue the flow sequence opened at 1:4; is a ']' missing?"),
        Case("unclosed flow mapping before the next key", "a: {x: 1\n1️⃣b: 2", "this line is not indented enough to continue the flow mapping opened at 1:4; is a '}' missing?"),
        Case("control character", "a: b1️⃣\u{7}", "character U+0007 is not allowed in YAML text"),
        Case("non-character", "1️⃣\u{FFFE}", "character U+FFFE is not allowed in YAML text"),
        Case("content after document end", "a\n... 1️⃣b", "unexpected 'b' after the value"),
        Case("flow nesting too deep", String(repeating: "[", count: 256) + "1️⃣[" + String(repeating: "]", count: 257), "collections are nested more than 256 levels deep"),
    ]

    @Test(arguments: cases)
    func errorPointsAtTheProblem(_ testCase: Case) {
        let expected = "\(testCase.input.mark): \(testCase.message)"
        #expect(yamlErrorText { try YAMLReader.documents(testCase.input.text) } == expected)
    }

    @Test func blockNestingTooDeepIsAnError() {
        var text = ""
        for level in 0..<300 {
            text += String(repeating: " ", count: level) + "k:\n"
        }
        #expect(yamlErrorText { try YAMLReader.documents(text) } == "257:257: collections are nested more than 256 levels deep")
        let dashes = String(repeating: "- ", count: 300) + "x"
        #expect(yamlErrorText { try YAMLReader.documents(dashes) } == "1:513: collections are nested more than 256 levels deep")
    }

    @Test func nestingUpToTheLimitReads() throws {
        let flow = String(repeating: "[", count: 256) + "1" + String(repeating: "]", count: 256)
        var node = try YAMLReader.document(flow)
        for _ in 0..<256 {
            let items = try #require(node.sequence)
            node = try #require(items.first)
        }
        #expect(node.scalarText == "1")
    }

    @Test(arguments: [
        ("", "1:1: expected exactly one document, found 0"),
        ("# just a comment\n", "1:1: expected exactly one document, found 0"),
        ("a\n---\nb", "3:1: expected exactly one document, found 2"),
    ])
    func documentWantsExactlyOne(_ input: String, _ expected: String) {
        #expect(yamlErrorText { try YAMLReader.document(input) } == expected)
    }
}
