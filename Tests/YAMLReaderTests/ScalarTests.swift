import Testing
import YAMLReader

/// Scalar text after quoting, escapes and folding.
@Suite(.timeLimit(.minutes(20))) struct ScalarTests {
    /// Reads `input` as one document holding a scalar and returns its text and style.
    static func scalar(_ input: String) throws -> YAMLScalar {
        let node = try YAMLReader.document(input)
        return try #require(node.scalar, "not a scalar: \(node.jsonText)")
    }

    @Test(arguments: [
        (#""\n""#, "\n"), (#""\t""#, "\t"), ("\"\\\t\"", "\t"), (#""\\""#, "\\"), (#""\"""#, "\""),
        (#""\/""#, "/"), (#""\0""#, "\u{0}"), (#""\a""#, "\u{7}"), (#""\b""#, "\u{8}"), (#""\e""#, "\u{1B}"),
        (#""\f""#, "\u{C}"), (#""\r""#, "\r"), (#""\v""#, "\u{B}"), (#""\ ""#, " "),
        (#""\N""#, "\u{85}"), (#""\_""#, "\u{A0}"), (#""\L""#, "\u{2028}"), (#""\P""#, "\u{2029}"),
        (#""\x41\x7e""#, "A~"), (#""\u00e9\u00E9""#, "éé"), (#""\U0001F600""#, "😀"),
        (#""a\tb\\c""#, "a\tb\\c"),
    ])
    func doubleQuotedEscapes(_ input: String, _ expected: String) throws {
        let scalar = try Self.scalar(input)
        #expect(scalar.text == expected)
        #expect(scalar.style == .doubleQuoted)
    }

    /// Text outside ASCII, as written in each style, one byte to four in UTF-8.
    @Test(arguments: [
        ("café ☕ 𝄞 ß", "café ☕ 𝄞 ß", YAMLScalarStyle.plain),
        ("'Zürich ☕ 𝄞'", "Zürich ☕ 𝄞", .singleQuoted),
        ("\"Zürich ☕ 𝄞\"", "Zürich ☕ 𝄞", .doubleQuoted),
        ("|\n  Zürich\n  ☕ 𝄞\n", "Zürich\n☕ 𝄞\n", .literal),
    ])
    func textOutsideASCII(_ input: String, _ expected: String, _ style: YAMLScalarStyle) throws {
        let scalar = try Self.scalar(input)
        #expect(scalar.text == expected)
        #expect(scalar.style == style)
        let mapping = try YAMLReader.document("Zürich ☕: \(input.hasPrefix("|") ? "x" : input)\n")
        #expect(mapping.jsonText.contains("Zürich ☕"))
    }

    @Test(arguments: [
        ("\"a\n  b\"", "a b"),
        ("\"a  \n  b\"", "a b"),
        ("\"a\n\n  b\"", "a\nb"),
        ("\"a\n\n\n  b\"", "a\n\nb"),
        ("\"a\\\n  b\"", "ab"),
        ("\"a \\\n  b\"", "a b"),
        ("\"a\\t\n  b\"", "a\t b"),
        ("\" a \"", " a "),
        ("'it''s'", "it's"),
        ("''", ""),
        ("'a\n  b'", "a b"),
        ("'a\n\n  b'", "a\nb"),
        ("'a\\n'", "a\\n"),
        ("'# not a comment'", "# not a comment"),
    ])
    func quotedFolding(_ input: String, _ expected: String) throws {
        #expect(try Self.scalar(input).text == expected)
    }

    @Test(arguments: [
        ("plain text", "plain text"),
        ("multi\nline", "multi line"),
        ("multi\n\nline", "multi\nline"),
        ("a  b  ", "a  b"),
        ("a # comment", "a"),
        ("a#b", "a#b"),
        ("http://x.y/z?q=1", "http://x.y/z?q=1"),
        ("-a", "-a"),
        (":a", ":a"),
        ("?a", "?a"),
        ("a: b", nil),
        ("x: multi\n  line\n\n  plain", nil),
    ] as [(String, String?)])
    func plainScalars(_ input: String, _ expected: String?) throws {
        if let expected {
            let scalar = try Self.scalar(input)
            #expect(scalar.text == expected)
            #expect(scalar.style == .plain)
        } else {
            // A mapping whose single value is the plain scalar.
            let node = try YAMLReader.document(input)
            let value = try #require(node.mapping?.first?.value.scalar)
            #expect(value.style == .plain)
            #expect(["b", "multi line\nplain"].contains(value.text))
        }
    }

    @Test(arguments: [
        ("a: |\n  x\n  y\n", "x\ny\n", YAMLScalarStyle.literal),
        ("a: |-\n  x\n\n", "x", .literal),
        ("a: |+\n  x\n\n", "x\n\n", .literal),
        ("a: |\n  x\n\n\n", "x\n", .literal),
        ("a: |\n\n  x\n", "\nx\n", .literal),
        ("a: |\n  x\n\n  y\n", "x\n\ny\n", .literal),
        ("a: |\n  # not a comment\n", "# not a comment\n", .literal),
        ("a: |  # a comment\n  x\n", "x\n", .literal),
        ("a: |2\n    indented\n  less\n", nil, .literal),
        ("a: |2\n    x\n", "  x\n", .literal),
        ("a: |1-\n  x\n", " x", .literal),
        ("a: |-2\n   x", " x", .literal),
        ("a: |\n  x", "x\n", .literal),
        ("a: |\n", "", .literal),
        ("a: |+\n\n", "\n", .literal),
        ("a: >\n  x\n  y\n\n  z\n", "x y\nz\n", .folded),
        ("a: >\n  x\n    more\n  y\n", "x\n  more\ny\n", .folded),
        ("a: >\n  x\n\n    more\n\n  y\n", "x\n\n  more\n\ny\n", .folded),
        ("a: >-\n  one\n  two\n", "one two", .folded),
        ("a: >\n\n  x\n", "\nx\n", .folded),
        ("a: >+\n  x\n\n", "x\n\n", .folded),
        ("- |\n  x\n- >\n  y\n", nil, .literal),
        ("--- |\nfoo\n...\n", "foo\n", .literal),
        ("--- >\n  a\n  b\n", "a b\n", .folded),
    ] as [(String, String?, YAMLScalarStyle)])
    func blockScalars(_ input: String, _ expected: String?, _ style: YAMLScalarStyle) throws {
        let node = try YAMLReader.document(input)
        let scalar: YAMLScalar
        if let pairs = node.mapping {
            scalar = try #require(pairs.first?.value.scalar)
        } else if let items = node.sequence {
            #expect(items.compactMap(\.scalarText) == ["x\n", "y\n"])
            return
        } else {
            scalar = try #require(node.scalar)
        }
        #expect(scalar.style == style)
        #expect(scalar.text == (expected ?? "  indented\nless\n"))
    }

    @Test func blockScalarEndsAtTheNextKey() throws {
        let node = try YAMLReader.document("a: |\n  x\n\n# comment\nb: >-\n  y\n  z\n\nc: 1\n")
        #expect(node.jsonText == #"{"a":"x\n","b":"y z","c":1}"#)
    }
}
