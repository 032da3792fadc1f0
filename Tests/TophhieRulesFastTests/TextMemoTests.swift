import Foundation
import TophhieTestSupport
import Testing
@testable import TophhieRules
@testable import TophhieRulesFast

/// The engine's small memos give what the function they keep gives, byte for byte: two strings
/// Swift calls equal (é precomposed and decomposed) are different inputs here, since keys and
/// alert ids are made of their bytes.
@Suite struct TextMemoTests {
    @Test func aMemoGivesWhatItsFunctionGivesAndTellsEquivalentStringsApart() {
        var memo = TextMemo(capacity: 3)
        var calls = 0
        func bytes(_ text: String) -> String { calls += 1; return text.utf8.map { String($0, radix: 16) }.joined(separator: " ") }
        let inputs = ["caf\u{E9}", "cafe\u{301}", "Edge 120.0", "caf\u{E9}", "a", "b", "c", "Edge 120.0", "", ""]
        #expect("caf\u{E9}" == "cafe\u{301}", "Swift compares strings by canonical equivalence")
        for input in inputs {
            #expect(memo.value(input, bytes) == bytes(input), "\(input.debugDescription)")
        }
        // Each input above computed once more by the check itself; the memo's own calls are the
        // misses: the repeated é is a hit, "Edge" is evicted by then (capacity 3), "" hits once.
        #expect(calls == inputs.count + 8)
    }

    @Test func aJoinedTextMemoJoinsAsItsFunctionDoesAndTellsEachPartApart() {
        var memo = JoinedTextMemo(capacity: 3)
        var calls = 0
        func join(_ a: String, _ b: String) -> String { calls += 1; return a + ", " + b }
        // The same joined text from other parts ("a, b" + "c" and "a" + "b, c") is another entry;
        // so is a part Swift calls equal but with other bytes.
        let pairs = [("Lisbon", "PT"), ("Lisbon", "ES"), ("Lisbon", "PT"), ("a, b", "c"), ("a", "b, c"), ("caf\u{E9}", "FR"),
                     ("cafe\u{301}", "FR"), ("x", "y"), ("Lisbon", "PT"), ("", ""), ("", "")]
        for (a, b) in pairs {
            #expect(Array(memo.value(a, b, join).utf8) == Array(join(a, b).utf8), "\(a.debugDescription) \(b.debugDescription)")
        }
        // The check's own calls are one a pair; the memo's are the misses: Lisbon, PT hits once
        // (then it is evicted at capacity 3), and the second empty pair hits.
        #expect(calls == pairs.count + 9)
    }

    @Test func theGroupKeyCacheGivesTheGroupKeyOfTheseBytes() {
        var cache = GroupKeyCache()
        for values in [["Jane@Contoso.com"], ["Jane@Contoso.com"], ["caf\u{E9}"], ["cafe\u{301}"], ["a", "B"], ["a", "b"], ["a"], []] {
            #expect(cache.key(values) == EngineRun.groupKey(values), "\(values)")
            #expect(Array(cache.key(values).utf8) == Array(EngineRun.groupKey(values).utf8), "\(values)")
        }
        // One value, given alone or in an array, in any order with the others: the same bytes.
        for values in [["Jane@Contoso.com"], ["jane@contoso.com"], ["caf\u{E9}"], ["cafe\u{301}"], ["a", "B"], ["a"], ["A"], ["A", "a"], ["A"]] {
            let key = values.count == 1 ? cache.key(only: values[0]) : cache.key(values)
            #expect(Array(key.utf8) == Array(EngineRun.groupKey(values).utf8), "\(values)")
            // The key with its hash follows the key, asked for once or twice.
            let hashed = { values.count == 1 ? cache.hashed(only: values[0]) : cache.hashed() }
            #expect(Array(hashed().text.utf8) == Array(key.utf8), "\(values)")
            #expect(hashed() == HashedText(key), "\(values)")
            #expect(Array(hashed().text.utf8) == Array(key.utf8), "\(values)")
        }
        // Equal as their texts are, hashed as their texts are hashed.
        #expect(HashedText("caf\u{E9}") == HashedText("cafe\u{301}"))
        #expect(HashedText("a") != HashedText("b"))
        #expect(Set([HashedText("x"), HashedText("x"), HashedText("y")]).count == 2)
        #expect(UTF8Bytes.same("", ""))
        #expect(!UTF8Bytes.same("caf\u{E9}", "cafe\u{301}"))
        #expect(UTF8Bytes.same(String(repeating: "x", count: 40), String(repeating: "x", count: 40)))
    }

    /// A short ASCII value is folded as `lowercased()` folds it; a longer one, or one outside
    /// ASCII, is left to the memo.
    @Test func aShortASCIIValueIsFoldedAsLowercasedFoldsIt() {
        for text in ["US", "us", "", "Windows / Edge", "iOS / Mobile Safari"[...].prefix(15).description, "A-Z@[`{", "123 ABC xyz"] {
            #expect(EngineRun.foldedShort(text).map { Array($0.utf8) } == Array(text.lowercased().utf8), "\(text)")
        }
        for text in ["Windows / Edge 1", "S\u{C3}O", "caf\u{E9}", String(repeating: "A", count: 16)] {
            #expect(EngineRun.foldedShort(text) == nil, "\(text)")
        }
    }

    /// A group key is its values lower-cased and joined by the unit separator, whichever way it
    /// is made: values already folded are kept as they are, others folded, ASCII or not.
    @Test func aGroupKeyIsItsValuesFoldedAndJoined() {
        for values in [["7c1f0c4e-0000-4000-8000-000000000001"], ["Jane@Contoso.COM"], ["85.240.12.229", "2001:DB8::1"],
                       ["\u{C9}LODIE", "s\u{E3}o paulo", ""], ["", ""], ["a", "B", "c"],
                       // Values that all fold to themselves: copied into the key as they are.
                       ["7c1f0c4e-0000-4000-8000-000000000001", "85.240.12.229"], ["", "x"], ["x", ""],
                       ["7c1f0c4e-0000-4000-8000-000000000001", "exchange activesync", "2001:db8::1"]] {
            let expected = values.map { $0.lowercased() }.joined(separator: "\u{1F}")
            #expect(Array(EngineRun.groupKey(values).utf8) == Array(expected.utf8), "\(values)")
        }
    }
}
