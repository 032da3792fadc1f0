import Testing
@testable import TophhieRules

@Suite(.timeLimit(.minutes(20))) struct ConditionParserTests {
    /// Precedence, loosest first: or, and, not, x of, parentheses. Shown fully parenthesised.
    @Test(arguments: [
        ("a", "a"),
        ("a and b or c", "(a and b) or c"),
        ("a or b and c", "a or (b and c)"),
        ("not a and b", "not a and b"),
        ("not (a and b)", "not (a and b)"),
        ("a and not b or not c and d", "(a and not b) or (not c and d)"),
        ("not not a", "not not a"),
        ("(a or b) and c", "(a or b) and c"),
        ("1 of sel* and not filter", "1 of sel* and not filter"),
        ("all of them", "all of them"),
        ("any of sel_*", "1 of sel_*"),
        ("2 of sel*", "2 of sel*"),
        ("not 1 of filter_* or a", "not 1 of filter_* or a"),
        ("a AND b OR NOT c", "(a and b) or not c"),
        ("((a))", "a"),
        ("a or b or c", "a or b or c"),
    ])
    func precedence(_ input: String, _ expected: String) throws {
        #expect(try ConditionParser.parse(input).description == expected)
    }

    @Test func andBindsTighterThanOrInTheTree() throws {
        let parsed = try ConditionParser.parse("a or b and c")
        #expect(parsed == .or([.identifier("a"), .and([.identifier("b"), .identifier("c")])]))
        #expect(try ConditionParser.parse("not a or b") == .or([.not(.identifier("a")), .identifier("b")]))
    }

    /// Each error points at the column of the offending token (1-based).
    @Test(arguments: [
        ("", 1, "empty"),
        ("a and", 6, "ends where"),
        ("a b", 3, "unexpected 'b'"),
        ("(a or b", 8, "never closed"),
        ("a or b)", 7, "unexpected ')'"),
        ("1 of", 5, "'of' needs"),
        ("all sel*", 1, "must be followed by 'of'"),
        ("sel* and a", 1, "needs a quantifier"),
        ("a and or b", 7, "where an identifier"),
        ("a & b", 3, "unexpected character '&'"),
        ("0 of sel*", 1, "positive number"),
    ])
    func errors(_ input: String, _ column: Int, _ fragment: String) {
        do {
            _ = try ConditionParser.parse(input)
            Issue.record("'\(input)' should not parse")
        } catch let error as ConditionSyntaxError {
            #expect(error.column == column, "\(input): \(error)")
            #expect(error.message.contains(fragment), "\(input): \(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func quantifiersSkipUnderscoreIdentifiersUnlessThePatternNamesThem() {
        let names = ["sel_a", "sel_b", "_sel_hidden", "filter", "_filter"]
        #expect(ConditionTarget.them.resolve(in: names) == ["filter", "sel_a", "sel_b"])
        #expect(ConditionTarget.pattern("sel*").resolve(in: names) == ["sel_a", "sel_b"])
        #expect(ConditionTarget.pattern("_*").resolve(in: names) == ["_filter", "_sel_hidden"])
    }
}
