import Testing
@testable import TophhieRules

/// `CountryNames.name(of:)`: a code of either case, by its two letters.
@Suite struct CountryNamesTests {
    @Test func codesAreNamedInEitherCaseAndNothingElseIs() {
        #expect(CountryNames.name(of: "RU") == "Russia")
        #expect(CountryNames.name(of: "ru") == "Russia")
        #expect(CountryNames.name(of: "gB") == "United Kingdom")
        #expect(CountryNames.name(of: "AA") == nil)
        #expect(CountryNames.name(of: "ZZ") == nil)
        // The bytes beside the letters, which a case bit would bring into them.
        for other in ["@A", "A[", "`a", "a{", "R", "RUS", "", "1A", "R\u{0}"] { #expect(CountryNames.name(of: other) == nil, "\(other)") }
        // Past ASCII, Unicode's upper-casing: the dotless i raises to I.
        #expect(CountryNames.name(of: "\u{131}t") == "Italy")
        let letters = (UInt8(ascii: "A")...UInt8(ascii: "Z")).map { String(UnicodeScalar($0)) }
        var named = 0
        for first in letters {
            for second in letters {
                let upper = CountryNames.name(of: first + second)
                #expect(CountryNames.name(of: (first + second).lowercased()) == upper)
                #expect(CountryNames.name(of: first.lowercased() + second) == upper)
                if upper != nil { named += 1 }
            }
        }
        #expect(named == 249)
    }
}
