import Foundation
import Testing
import YAMLReader

/// The reader returns or throws on any input: no trap, no hang.
@Suite struct RobustnessTests {
    /// Reads `text`; the outcome does not matter, only that the call comes back.
    /// - Returns: true when the text was accepted.
    @discardableResult
    static func read(_ text: String) -> Bool {
        (try? YAMLReader.documents(text)) != nil
    }

    /// Suite inputs chosen to cover every construct: block, flow, quotes, block scalars, errors.
    static let suiteIDs = [
        "229Q", "2XXW", "4CQQ", "4ZYM", "5GBF", "6HB6", "6JQW", "7A4E", "8G76", "93JH", "9SHH",
        "A2M4", "DK95/01", "F8F9", "J7PZ", "K858", "M7A3", "NP9H", "P2AD", "R4YG", "RZT7", "TL85",
        "W4TN", "ZCZ6", "5TRB", "9C9N", "CML9", "S98Z", "X4QW",
    ]

    @Test func everyPrefixOfSuiteInputsReturns() throws {
        let cases = YAMLSuiteCase.all(in: RepositoryPaths.yamlTestSuite)
        let chosen = cases.filter { Self.suiteIDs.contains($0.id) }
        try #require(chosen.count >= 20, "YAML test suite inputs missing")
        var prefixes = 0
        var accepted = 0
        for suiteCase in chosen {
            let scalars = Array(suiteCase.yaml.unicodeScalars)
            for length in 0...scalars.count {
                var prefix = String.UnicodeScalarView()
                prefix.append(contentsOf: scalars[..<length])
                if Self.read(String(prefix)) { accepted += 1 }
                prefixes += 1
            }
        }
        // Some prefixes of valid inputs are valid, some are not: both paths ran.
        #expect(accepted > 0 && accepted < prefixes)
    }

    @Test func randomByteSoupReturns() {
        var generator = SplitMix64(seed: 0x5EED_CAFE)
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<200, using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            Self.read(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Soup from YAML's own punctuation reaches far deeper into the reader than arbitrary bytes.
    @Test func randomIndicatorSoupReturns() {
        let alphabet: [String] = [
            " ", " ", "  ", "\n", "\n", "\t", "- ", "-", ": ", ":", "? ", "[", "]", "{", "}", ",", "#", " #",
            "'", "\"", "\\", "\\n", "|", ">", "|-", ">+", "|2", "a", "b", "key", "1", ".5", "~", "---", "...",
            "!", "&", "*", "%", "@", "\r\n", "é", "\\x4", "\\u00e9",
        ]
        var generator = SplitMix64(seed: 42)
        var accepted = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0..<40, using: &generator)
            var text = ""
            for _ in 0..<count {
                text += alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
            }
            if Self.read(text) { accepted += 1 }
        }
        #expect(accepted > 0)
    }

    @Test(arguments: [
        String(repeating: "[", count: 100_000),
        String(repeating: "{a: ", count: 50_000),
        String(repeating: "- ", count: 50_000),
        (0..<2_000).map { String(repeating: " ", count: $0) + "a:" }.joined(separator: "\n"),
        String(repeating: "\"", count: 10_001),
        String(repeating: "'", count: 10_001),
        String(repeating: "\n", count: 100_000),
        String(repeating: "a\n ", count: 50_000),
        "|" + String(repeating: "\n", count: 10_000) + "x",
    ])
    func pathologicalInputsReturn(_ text: String) {
        Self.read(text)
    }
}
