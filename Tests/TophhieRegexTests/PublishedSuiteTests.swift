import Foundation
import Testing
import TophhieRegex

/// One case selected from rust-lang/regex's testdata by scripts/convert-rust-regex-suite.py.
struct PublishedCase: Decodable, Sendable, CustomTestStringConvertible {
    var name: String
    var pattern: String
    var haystack: String
    var options: String
    var anchored: Bool
    var expected: String

    var testDescription: String { name }
}

private struct PublishedSuite: Decodable {
    var source: String
    var selected: Int
    var skipped: [String: Int]
    var cases: [PublishedCase]
}

private func loadPublishedSuite() -> [PublishedCase] {
    let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("Data/rust-regex-suite.json")
    do {
        let suite = try JSONDecoder().decode(PublishedSuite.self, from: Data(contentsOf: url))
        return suite.cases
    } catch {
        // An empty argument list would pass silently; a sentinel case fails loudly instead.
        return [PublishedCase(name: "load failure: \(error)", pattern: "", haystack: "", options: "", anchored: false, expected: "unloadable")]
    }
}

@Suite struct PublishedSuiteTests {
    @Test(arguments: loadPublishedSuite())
    func rustRegexCase(_ testCase: PublishedCase) throws {
        var options: LinearRegex.Options = []
        if testCase.options.contains("i") { options.insert(.ignoreCase) }
        // Rust's anchored search means "the match starts at offset 0", which \A(?:...) expresses.
        let pattern = testCase.anchored ? #"\A(?:"# + testCase.pattern + ")" : testCase.pattern
        switch testCase.expected {
        case "error":
            #expect(throws: RegexSyntaxError.self) { try LinearRegex(pattern, options: options) }
        case "match", "no match":
            let regex = try LinearRegex(pattern, options: options)
            #expect(regex.matches(testCase.haystack) == (testCase.expected == "match"))
        default:
            Issue.record("unexpected case: \(testCase.expected)")
        }
    }

    @Test func suiteIsLoaded() {
        #expect(loadPublishedSuite().count > 500)
    }
}
