import Testing
import TophhieRegex

struct ExpectedRefusal: Sendable, CustomTestStringConvertible {
    var pattern: String
    var offset: Int
    var message: String

    var testDescription: String { pattern }
}

private let refusalSuffix = "needs backtracking, which the agent refuses (a hostile value could stall it)"
private let backreferenceAdvice = "match the repeated text explicitly or use two selections"
private let lookaroundAdvice = "match the text itself, or move the condition into a second selection joined with 'and' / 'and not'"
private let recursionAdvice = "write out the nesting you need explicitly"

@Suite struct RefusalTests {
    static let backtrackingConstructs: [ExpectedRefusal] = [
        ExpectedRefusal(pattern: #"(a)\1"#, offset: 3,
                        message: #"backreference \1 needs backtracking, which the agent refuses (a hostile value could stall it); match the repeated text explicitly or use two selections"#),
        ExpectedRefusal(pattern: #"(a)(b)\12"#, offset: 6, message: #"backreference \12 "# + refusalSuffix + "; " + backreferenceAdvice),
        ExpectedRefusal(pattern: #"(?<word>a)\k<word>"#, offset: 10, message: #"backreference \k<word> "# + refusalSuffix + "; " + backreferenceAdvice),
        ExpectedRefusal(pattern: #"(a)\g{1}"#, offset: 3, message: #"backreference \g{1} "# + refusalSuffix + "; " + backreferenceAdvice),
        ExpectedRefusal(pattern: #"(?P<w>a)(?P=w)"#, offset: 8, message: "backreference (?P=w) " + refusalSuffix + "; " + backreferenceAdvice),
        ExpectedRefusal(pattern: "foo(?=bar)", offset: 3, message: "lookahead (?= " + refusalSuffix + "; " + lookaroundAdvice),
        ExpectedRefusal(pattern: "foo(?!bar)", offset: 3, message: "lookahead (?! " + refusalSuffix + "; " + lookaroundAdvice),
        ExpectedRefusal(pattern: "(?<=foo)bar", offset: 0, message: "lookbehind (?<= " + refusalSuffix + "; " + lookaroundAdvice),
        ExpectedRefusal(pattern: "x(?<!foo)bar", offset: 1, message: "lookbehind (?<! " + refusalSuffix + "; " + lookaroundAdvice),
        ExpectedRefusal(pattern: "a*+b", offset: 1,
                        message: "possessive quantifier *+ " + refusalSuffix + "; write * without the +, and if the rule relied on it, make the repeated item exclude what follows"),
        ExpectedRefusal(pattern: "ba++", offset: 2,
                        message: "possessive quantifier ++ " + refusalSuffix + "; write + without the +, and if the rule relied on it, make the repeated item exclude what follows"),
        ExpectedRefusal(pattern: "a?+", offset: 1,
                        message: "possessive quantifier ?+ " + refusalSuffix + "; write ? without the +, and if the rule relied on it, make the repeated item exclude what follows"),
        ExpectedRefusal(pattern: "a{2,3}+", offset: 1,
                        message: "possessive quantifier {2,3}+ " + refusalSuffix + "; write {2,3} without the +, and if the rule relied on it, make the repeated item exclude what follows"),
        ExpectedRefusal(pattern: "x(?>ab|a)c", offset: 1,
                        message: "atomic group (?> " + refusalSuffix + "; write a plain group (?: and make its contents exclude what follows"),
        ExpectedRefusal(pattern: "(a)?(?(1)b|c)", offset: 4,
                        message: "conditional group (?( " + refusalSuffix + "; write the alternatives out with | or use two selections"),
        ExpectedRefusal(pattern: #"\((?R)?\)"#, offset: 2, message: "recursion (?R) " + refusalSuffix + "; " + recursionAdvice),
        ExpectedRefusal(pattern: "(a(?1)?b)", offset: 2, message: "recursion (?1) " + refusalSuffix + "; " + recursionAdvice),
        ExpectedRefusal(pattern: "(?<p>a(?&p)?b)", offset: 6, message: "recursion (?&p) " + refusalSuffix + "; " + recursionAdvice),
        ExpectedRefusal(pattern: "(?P<p>a(?P>p)?b)", offset: 7, message: "recursion (?P>p) " + refusalSuffix + "; " + recursionAdvice),
        ExpectedRefusal(pattern: #"(a\g<1>?b)"#, offset: 2, message: #"recursion \g<1> "# + refusalSuffix + "; " + recursionAdvice),
    ]

    static let syntaxErrors: [ExpectedRefusal] = [
        ExpectedRefusal(pattern: "(ab", offset: 0, message: "missing ) to close the group opened here"),
        ExpectedRefusal(pattern: "a(b(c)", offset: 1, message: "missing ) to close the group opened here"),
        ExpectedRefusal(pattern: "ab)", offset: 2, message: #"unmatched ) with no group to close; write \) for a literal parenthesis"#),
        ExpectedRefusal(pattern: "x[z-a]", offset: 2, message: "range z-a is out of order; write the smaller character first"),
        ExpectedRefusal(pattern: "[ab", offset: 0, message: "missing ] to close the class opened here"),
        ExpectedRefusal(pattern: "*a", offset: 0, message: #"quantifier * has nothing to repeat; write \* for a literal"#),
        ExpectedRefusal(pattern: "a|+", offset: 2, message: #"quantifier + has nothing to repeat; write \+ for a literal"#),
        ExpectedRefusal(pattern: "(?)", offset: 0, message: "inline flag group names no flag; write (?i), (?m), (?s) or (?:...)"),
        ExpectedRefusal(pattern: "(?m){1,1}", offset: 4, message: #"quantifier {1,1} has nothing to repeat; write \{ for a literal brace"#),
        ExpectedRefusal(pattern: "a**", offset: 2, message: "quantifier * follows another quantifier; wrap the repeated part in (?:...) first"),
        ExpectedRefusal(pattern: #"ab\"#, offset: 2, message: #"pattern ends with a lone backslash; write \\ for a literal backslash"#),
        ExpectedRefusal(pattern: "a{1001}", offset: 1,
                        message: "counted repetition {1001} exceeds the limit of 1000; use a smaller count or + / * for open-ended repetition"),
        ExpectedRefusal(pattern: "a{1001,}", offset: 1,
                        message: "counted repetition {1001,} exceeds the limit of 1000; use a smaller count or + / * for open-ended repetition"),
        ExpectedRefusal(pattern: "a{3,2}", offset: 1, message: "counted repetition {3,2} has its minimum above its maximum"),
        ExpectedRefusal(pattern: "a{,3}", offset: 1, message: "counted repetition {,3} has no minimum; write {0,3}"),
        ExpectedRefusal(pattern: "(a{1000}){1000}", offset: 9,
                        message: "this repetition expands the pattern beyond 20000 steps; use smaller counts or + / *"),
        ExpectedRefusal(pattern: #"\p{L}"#, offset: 0,
                        message: #"Unicode property class \p is not supported; list the characters in a class such as [A-Za-z]"#),
        ExpectedRefusal(pattern: "(?x) a", offset: 2,
                        message: "inline flag x (extended mode) is not supported; remove the whitespace and # comments from the pattern"),
        ExpectedRefusal(pattern: #"\q"#, offset: 0,
                        message: #"unknown escape \q; write the character without a backslash, or \\ for a backslash"#),
        ExpectedRefusal(pattern: #"[\d-z]"#, offset: 3, message: #"a range cannot start with a class such as \d; write \- for a literal hyphen"#),
        ExpectedRefusal(pattern: "[a[b]]", offset: 2,
                        message: #"[ inside a class is read differently by PCRE, ICU and Rust; write \[ for a literal bracket (nested classes are not supported)"#),
        ExpectedRefusal(pattern: #"\x{110000}"#, offset: 0, message: "escape names 110000, which is not a Unicode scalar value"),
        ExpectedRefusal(pattern: #"\xG1"#, offset: 0, message: #"\x needs exactly 2 hexadecimal digits"#),
        // Offsets count scalars as written, so a non-ASCII prefix moves them by one each.
        ExpectedRefusal(pattern: "é日本(", offset: 3, message: "missing ) to close the group opened here"),
    ]

    @Test(arguments: backtrackingConstructs)
    func backtrackingConstructIsRefused(_ expected: ExpectedRefusal) {
        expectRefusal(expected)
    }

    @Test(arguments: syntaxErrors)
    func syntaxErrorIsReported(_ expected: ExpectedRefusal) {
        expectRefusal(expected)
    }

    @Test func descriptionNamesOffset() {
        let error = RegexSyntaxError("example", at: 4)
        #expect(error.description == "regular expression error at offset 4: example")
    }

    private func expectRefusal(_ expected: ExpectedRefusal, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try LinearRegex(expected.pattern)
            Issue.record("\(expected.pattern) compiled but should be refused", sourceLocation: sourceLocation)
        } catch let error as RegexSyntaxError {
            #expect(error.message == expected.message, sourceLocation: sourceLocation)
            #expect(error.offset == expected.offset, sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }
}
