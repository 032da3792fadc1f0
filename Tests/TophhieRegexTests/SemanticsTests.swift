import Testing
import TophhieRegex

struct SemanticsCase: Sendable, CustomTestStringConvertible {
    var pattern: String
    var options: LinearRegex.Options = []
    var value: String
    var matches: Bool

    var testDescription: String { "\(pattern.debugDescription) on \(value.debugDescription)" }
}

/// Hand-written cases for the choices this engine makes explicitly (see the doc comments on each construct).
@Suite struct SemanticsTests {
    static let cases: [SemanticsCase] = [
        // Unanchored search and anchors.
        SemanticsCase(pattern: "b", value: "abc", matches: true),
        SemanticsCase(pattern: "^b", value: "abc", matches: false),
        SemanticsCase(pattern: "c$", value: "abc\n", matches: true),
        SemanticsCase(pattern: #"c\z"#, value: "abc\n", matches: false),
        SemanticsCase(pattern: #"c\Z"#, value: "abc\n", matches: true),
        SemanticsCase(pattern: "c$", value: "abc\n\n", matches: false),
        SemanticsCase(pattern: "^b$", options: .multiline, value: "a\nb\nc", matches: true),
        SemanticsCase(pattern: "^b$", value: "a\nb\nc", matches: false),
        SemanticsCase(pattern: "^$", options: .multiline, value: "a\n", matches: false),
        SemanticsCase(pattern: #"\Aa"#, options: .multiline, value: "b\na", matches: false),
        SemanticsCase(pattern: "a.c", value: "a\nc", matches: false),
        SemanticsCase(pattern: "a.c", options: .dotMatchesNewline, value: "a\nc", matches: true),
        SemanticsCase(pattern: "(?s)a.c", value: "a\nc", matches: true),
        SemanticsCase(pattern: "a.c", value: "a\rc", matches: true),
        // Escapes and classes (ASCII \d \w \s).
        SemanticsCase(pattern: #"\d+"#, value: "٣", matches: false),
        SemanticsCase(pattern: #"\w"#, value: "é", matches: false),
        SemanticsCase(pattern: #"\s"#, value: "\u{0B}", matches: true),
        SemanticsCase(pattern: #"\bcat\b"#, value: "a cat!", matches: true),
        SemanticsCase(pattern: #"\bcat\b"#, value: "concat", matches: false),
        SemanticsCase(pattern: #"\Bcat"#, value: "concat", matches: true),
        SemanticsCase(pattern: #"\x41\x{1F642}\u00e9"#, value: "A🙂é", matches: true),
        SemanticsCase(pattern: #"[\]\-\\]"#, value: "-", matches: true),
        SemanticsCase(pattern: "[]a]", value: "]", matches: true),
        SemanticsCase(pattern: "[^]a]", value: "]", matches: false),
        SemanticsCase(pattern: "[a-]", value: "-", matches: true),
        SemanticsCase(pattern: "[[:digit:][:upper:]]+x", value: "A1x", matches: true),
        SemanticsCase(pattern: #"C:\\Windows\\System32\\.*\.exe"#, value: #"C:\Windows\System32\cmd.exe"#, matches: true),
        SemanticsCase(pattern: "a{2,3}b", value: "aab", matches: true),
        SemanticsCase(pattern: "^a{2,3}b", value: "ab", matches: false),
        SemanticsCase(pattern: "x{", value: "x{", matches: true),
        SemanticsCase(pattern: "a{2}?b", value: "aab", matches: true),
        SemanticsCase(pattern: "(?:ab)*?c|d+?", value: "ababc", matches: true),
        SemanticsCase(pattern: "(?<name>ab)(?#comment)c", value: "abc", matches: true),
        SemanticsCase(pattern: "(|a)b", value: "b", matches: true),
        SemanticsCase(pattern: "(a*)*b", value: "aaab", matches: true),
        // Case folding: simple folding, including the non-ASCII members of ASCII orbits.
        SemanticsCase(pattern: "mozilla", options: .ignoreCase, value: "MOZILLA/5.0", matches: true),
        SemanticsCase(pattern: "(?i)k", value: "\u{212A}", matches: true),
        SemanticsCase(pattern: "(?i)s", value: "\u{17F}", matches: true),
        SemanticsCase(pattern: "(?i)σ", value: "Σ", matches: true),
        SemanticsCase(pattern: "(?i)σ", value: "ς", matches: true),
        SemanticsCase(pattern: "(?i)привет", value: "ПРИВЕТ", matches: true),
        SemanticsCase(pattern: "(?i)ǅ", value: "ǆ", matches: true),
        SemanticsCase(pattern: "(?i)ß", value: "ss", matches: false),
        SemanticsCase(pattern: "(?i)[a-c]+", value: "ABC", matches: true),
        SemanticsCase(pattern: "(?i)[^a]", value: "A", matches: false),
        SemanticsCase(pattern: "a(?i)b", value: "AB", matches: false),
        SemanticsCase(pattern: "a(?i)b", value: "aB", matches: true),
        SemanticsCase(pattern: "(?i:a)b", value: "Ab", matches: true),
        SemanticsCase(pattern: "(?i:a)b", value: "AB", matches: false),
        SemanticsCase(pattern: "(?i)a(?-i)b", value: "Ab", matches: true),
        SemanticsCase(pattern: "(?i)a(?-i)b", value: "AB", matches: false),
        // Scalars, not grapheme clusters: "e" + combining acute is two scalars.
        SemanticsCase(pattern: "^.$", value: "e\u{301}", matches: false),
        SemanticsCase(pattern: "^..$", value: "e\u{301}", matches: true),
    ]

    @Test(arguments: cases)
    func matchesAsDocumented(_ testCase: SemanticsCase) throws {
        let regex = try LinearRegex(testCase.pattern, options: testCase.options)
        #expect(regex.matches(testCase.value) == testCase.matches)
    }

    @Test func equalityFollowsPatternAndOptions() throws {
        let first = try LinearRegex("a+", options: .ignoreCase)
        let second = try LinearRegex("a+", options: .ignoreCase)
        let third = try LinearRegex("a+")
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(first != third)
        #expect(Set([first, second, third]).count == 2)
        #expect(try LinearRegex("é") != LinearRegex("e\u{301}"))
    }
}
