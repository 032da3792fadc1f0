import Foundation
import Testing
import TophhieTestSupport
import TophhieRegex

/// Compares the engine with NSRegularExpression (ICU) on small generated patterns and values.
///
/// The alphabet stays where the two are meant to agree: ASCII letters, space and "\n"
/// (ICU also treats \r, \u{85}, \u{2028}… as line ends; this engine follows PCRE and only uses "\n").
/// Values are short so ICU's backtracking finishes quickly.
@Suite struct DifferentialTests {
    static let batchCount = 25
    static let patternsPerBatch = 40
    static let valuesPerPattern = 5

    private struct PatternGenerator {
        var random: SeededGenerator

        mutating func pick<T>(_ choices: [T]) -> T {
            choices[Int.random(in: 0..<choices.count, using: &random)]
        }

        mutating func chance(_ percent: Int) -> Bool {
            Int.random(in: 0..<100, using: &random) < percent
        }

        /// A generated fragment and whether it can match the empty string.
        struct Fragment {
            var text: String
            var isNullable: Bool
        }

        mutating func alternation(depth: Int) -> Fragment {
            var branches = [concatenation(depth: depth)]
            while chance(20) {
                branches.append(concatenation(depth: depth))
            }
            return Fragment(text: branches.map(\.text).joined(separator: "|"), isNullable: branches.contains { $0.isNullable })
        }

        mutating func concatenation(depth: Int) -> Fragment {
            var items: [Fragment] = []
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                items.append(item(depth: depth))
            }
            return Fragment(text: items.map(\.text).joined(), isNullable: items.allSatisfy(\.isNullable))
        }

        mutating func item(depth: Int) -> Fragment {
            if chance(12) {
                return Fragment(text: pick(["^", "$", #"\b"#, #"\B"#]), isNullable: true)
            }
            let atom: Fragment
            if depth < 2, chance(25) {
                let body = alternation(depth: depth + 1)
                atom = Fragment(text: pick(["(", "(?:"]) + body.text + ")", isNullable: body.isNullable)
                // ICU mishandles loops whose body can match empty: on "bcB", (?:.{2,})((\B[^a]$)*)*?\w
                // matches in Python's re and PCRE (grep -P) but not in ICU. Such groups stay unquantified.
                if body.isNullable { return atom }
            } else {
                let text = pick(["a", "b", "c", "A", " ", ".", "[ab]", "[^a]", "[a-c]", "[^b\\n]", #"\w"#, #"\s"#, #"\W"#, #"\d"#, #"\n"#])
                atom = Fragment(text: text, isNullable: false)
            }
            guard chance(45) else { return atom }
            let quantifier = pick(["*", "+", "?", "{2}", "{1,2}", "{0,3}", "{2,}"])
            let allowsZero = quantifier == "*" || quantifier == "?" || quantifier == "{0,3}"
            return Fragment(text: atom.text + quantifier + (chance(20) ? "?" : ""), isNullable: atom.isNullable || allowsZero)
        }

        mutating func value() -> String {
            let alphabet: [Character] = ["a", "b", "c", "A", "B", " ", "\n", "1"]
            let length = Int.random(in: 0...10, using: &random)
            return String((0..<length).map { _ in pick(alphabet) })
        }
    }

    private struct Mismatch: CustomStringConvertible {
        var pattern: String
        var options: LinearRegex.Options
        var value: String
        var ours: Bool
        var icu: Bool

        var description: String {
            "pattern \(pattern.debugDescription) options \(options.rawValue) value \(value.debugDescription): ours \(ours), ICU \(icu)"
        }
    }

    @Test(arguments: 0..<batchCount)
    func agreesWithICU(batch: Int) throws {
        var generator = PatternGenerator(random: SeededGenerator(seed: 0x5167_4D41 &+ UInt64(batch)))
        var mismatches: [Mismatch] = []
        var compared = 0
        for _ in 0..<Self.patternsPerBatch {
            let pattern = generator.alternation(depth: 0).text
            var options: LinearRegex.Options = []
            var icuOptions: NSRegularExpression.Options = []
            if generator.chance(30) { options.insert(.ignoreCase); icuOptions.insert(.caseInsensitive) }
            if generator.chance(30) { options.insert(.multiline); icuOptions.insert(.anchorsMatchLines) }
            if generator.chance(30) { options.insert(.dotMatchesNewline); icuOptions.insert(.dotMatchesLineSeparators) }
            // Only patterns both engines accept are compared.
            guard let icu = try? NSRegularExpression(pattern: pattern, options: icuOptions) else { continue }
            let ours = try LinearRegex(pattern, options: options)
            for _ in 0..<Self.valuesPerPattern {
                let value = generator.value()
                let icuMatches = icu.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
                let ourMatches = ours.matches(value)
                compared += 1
                if icuMatches != ourMatches {
                    mismatches.append(Mismatch(pattern: pattern, options: options, value: value, ours: ourMatches, icu: icuMatches))
                }
            }
        }
        #expect(compared > Self.patternsPerBatch * Self.valuesPerPattern * 9 / 10)
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(compared) differ, first: \(mismatches.prefix(5).map(\.description))")
    }
}
