import Testing
import YAMLReader

/// Block and flow collections and document streams, compared as compact JSON.
@Suite(.timeLimit(.minutes(20))) struct StructureTests {
    @Test(arguments: [
        ("a: 1\nb: two", #"{"a":1,"b":"two"}"#),
        ("a:\n- x\n- y\nb: z", #"{"a":["x","y"],"b":"z"}"#),
        ("a:\n  - x\n  - y", #"{"a":["x","y"]}"#),
        ("- a: 1\n  b: 2\n- c", #"[{"a":1,"b":2},"c"]"#),
        ("- a:\n  - x\n  b: y", #"[{"a":["x"],"b":"y"}]"#),
        ("- a:\n- b", #"[{"a":null},"b"]"#),
        ("- - a\n  - b\n- c", #"[["a","b"],"c"]"#),
        ("-\n  a: 1\n-\n  - x", #"[{"a":1},["x"]]"#),
        ("a:\n  b:\n    c: d", #"{"a":{"b":{"c":"d"}}}"#),
        ("a:\nb:", #"{"a":null,"b":null}"#),
        ("- \n- x", #"[null,"x"]"#),
        ("a: b # comment\n# full line\n\nc: d", #"{"a":"b","c":"d"}"#),
        ("a:    \n  # comment\n  b: 1", #"{"a":{"b":1}}"#),
        ("a\t: b", #"{"a":"b"}"#),
        ("a:\tb", #"{"a":"b"}"#),
        ("- \tb", #"["b"]"#),
        ("'quoted key': 1\n\"other\": 2", #"{"quoted key":1,"other":2}"#),
        ("a: 1\r\nb: 2\r\n", #"{"a":1,"b":2}"#),
        ("a: 1\rb: 2", #"{"a":1,"b":2}"#),
        ("\u{FEFF}a: 1", #"{"a":1}"#),
        ("  a: 1\n  b: 2", #"{"a":1,"b":2}"#),
        ("a: b\n - c", #"{"a":"b - c"}"#),
        ("key: value with: colon", nil),
        ("CommandLine|contains|all:\n  - 'a'\n  - b", #"{"CommandLine|contains|all":["a","b"]}"#),
        ("a: x:y", #"{"a":"x:y"}"#),
        ("a: 'x' # c", #"{"a":"x"}"#),
        ("é: ü", #"{"é":"ü"}"#),
    ] as [(String, String?)])
    func blockCollections(_ input: String, _ json: String?) throws {
        if let json {
            #expect(try YAMLReader.document(input).jsonText == json)
        } else {
            #expect(throws: YAMLError.self) { try YAMLReader.document(input) }
        }
    }

    @Test(arguments: [
        ("{a: 1, b: [x, y]}", #"{"a":1,"b":["x","y"]}"#),
        ("[a, b, ]", #"["a","b"]"#),
        ("{a: 1, }", #"{"a":1}"#),
        ("[]", "[]"),
        ("{}", "{}"),
        ("{a: 1,\n  b: 2\n}", #"{"a":1,"b":2}"#),
        ("key: [\n  1,\n  2\n  ]", #"{"key":[1,2]}"#),
        ("key: {\n    a: 1,\n    b: [x,\n      y]}\nnext: 2", #"{"key":{"a":1,"b":["x","y"]},"next":2}"#),
        ("[a: 1, b]", #"[{"a":1},"b"]"#),
        ("[\"a\":b]", #"[{"a":"b"}]"#),
        ("{\"a\":b}", #"{"a":"b"}"#),
        ("{a, b: }", #"{"a":null,"b":null}"#),
        ("{a:}", #"{"a":null}"#),
        ("[[1, 2], {x: y}]", #"[[1,2],{"x":"y"}]"#),
        ("[a b, c\n  d]", #"["a b","c d"]"#),
        ("{url: http://x.y/z}", #"{"url":"http://x.y/z"}"#),
        ("[a:b]", #"["a:b"]"#),
        ("{a:1}", #"{"a:1":null}"#),
        ("['a, b', \"c]\"]", #"["a, b","c]"]"#),
        ("[1, # comment\n 2]", "[1,2]"),
        ("[a#b]", #"["a#b"]"#),
        ("[-1, -a, .5]", #"[-1,"-a",0.5]"#),
        ("- [a, b]\n- {c: d}", #"[["a","b"],{"c":"d"}]"#),
        ("{a: [1, 2]}: x", nil),
        ("[a, b", nil),
    ] as [(String, String?)])
    func flowCollections(_ input: String, _ json: String?) throws {
        if let json {
            #expect(try YAMLReader.document(input).jsonText == json)
        } else {
            #expect(throws: YAMLError.self) { try YAMLReader.document(input) }
        }
    }

    @Test(arguments: [
        ("", [String]()),
        ("# only a comment\n\n", []),
        ("---", ["null"]),
        ("--- # comment", ["null"]),
        ("---\n---\n", ["null", "null"]),
        ("a\n---\nb", [#""a""#, #""b""#]),
        ("a\n...\nb", [#""a""#, #""b""#]),
        ("---\na: 1\n...\n---\n- x\n", [#"{"a":1}"#, #"["x"]"#]),
        ("--- text\nmore\n", [#""text more""#]),
        ("--- \"q\"", [#""q""#]),
        ("--- [a]", [#"["a"]"#]),
        ("...\n", []),
        ("a: 1\n...\n# trailing comment\n", [#"{"a":1}"#]),
        ("--- |\n  x\n--- >\n  y\n", [#""x\n""#, #""y\n""#]),
    ])
    func documentStreams(_ input: String, _ expected: [String]) throws {
        #expect(try YAMLReader.documents(input).map(\.jsonText) == expected)
    }
}
