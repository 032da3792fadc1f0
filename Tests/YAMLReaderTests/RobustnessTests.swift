import Foundation
import Testing
import TophhieSystem
import YAMLReader

/// The reader returns or throws on any input: no trap, no hang.
@Suite(.timeLimit(.minutes(20))) struct RobustnessTests {
    /// How one read ended.
    enum Outcome: Equatable {
        case accepted
        case rejected
        /// Rejected, but not as the reader promises: the finding, in words.
        case broken(String)
    }

    /// Reads `text`: it must be accepted, or rejected with a `YAMLError` whose mark lies inside
    /// the text (a line that exists, a column on it or just past its end) and whose message is
    /// a sentence; never a crash, a hang or an unlocated error.
    static func read(_ text: String) -> Outcome {
        do {
            _ = try YAMLReader.documents(text)
            return .accepted
        } catch let error as YAMLError {
            // YAML breaks lines at LF, CRLF and CR; Swift's "\r\n" is one Character, so count scalars.
            let normalised = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            let lines = normalised.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            let lineOK = error.mark.line >= 1 && error.mark.line <= max(1, lines.count)
            let lineLength = lineOK && !lines.isEmpty ? lines[error.mark.line - 1].count : 0
            guard lineOK, error.mark.column >= 1, error.mark.column <= lineLength + 1 else {
                return .broken("mark \(error.mark) outside \(text.debugDescription)")
            }
            return error.message.isEmpty ? .broken("empty message for \(text.debugDescription)") : .rejected
        } catch {
            return .broken("not a YAMLError: \(error) for \(text.debugDescription)")
        }
    }

    /// Reads every input on the blocking-work pool, not on a cooperative thread: this is seconds of
    /// CPU, and the other suites' async tests need the cooperative pool meanwhile.
    static func readAll(_ inputs: @escaping @Sendable () -> [String]) async throws -> (accepted: Int, total: Int, broken: [String]) {
        try await BlockingWork.shared.run {
            var accepted = 0
            var total = 0
            var broken: [String] = []
            for text in inputs() {
                total += 1
                switch read(text) {
                case .accepted: accepted += 1
                case .rejected: break
                case .broken(let finding): if broken.count < 10 { broken.append(finding) }
                }
            }
            return (accepted, total, broken)
        }
    }

    /// Suite inputs chosen to cover every construct: block, flow, quotes, block scalars, errors.
    static let suiteIDs = [
        "229Q", "2XXW", "4CQQ", "4ZYM", "5GBF", "6HB6", "6JQW", "7A4E", "8G76", "93JH", "9SHH",
        "A2M4", "DK95/01", "F8F9", "J7PZ", "K858", "M7A3", "NP9H", "P2AD", "R4YG", "RZT7", "TL85",
        "W4TN", "ZCZ6", "5TRB", "9C9N", "CML9", "S98Z", "X4QW",
    ]

    @Test func everyPrefixOfSuiteInputsReturns() async throws {
        let cases = YAMLSuiteCase.all(in: RepositoryPaths.yamlTestSuite)
        let chosen = cases.filter { Self.suiteIDs.contains($0.id) }
        try #require(chosen.count >= 20, "YAML test suite inputs missing")
        let result = try await Self.readAll {
            chosen.flatMap { suiteCase in
                let scalars = Array(suiteCase.yaml.unicodeScalars)
                return (0...scalars.count).map { length in
                    var prefix = String.UnicodeScalarView()
                    prefix.append(contentsOf: scalars[..<length])
                    return String(prefix)
                }
            }
        }
        #expect(result.broken == [])
        // Some prefixes of valid inputs are valid, some are not: both paths ran.
        #expect(result.accepted > 0 && result.accepted < result.total)
    }

    @Test func randomByteSoupReturns() async throws {
        let result = try await Self.readAll {
            var generator = SplitMix64(seed: 0x5EED_CAFE)
            return (0..<2_000).map { _ in
                let length = Int.random(in: 0..<200, using: &generator)
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                return String(decoding: bytes, as: UTF8.self)
            }
        }
        #expect(result.broken == [])
        #expect(result.total == 2_000)
    }

    /// Soup from YAML's own punctuation reaches far deeper into the reader than arbitrary bytes.
    @Test func randomIndicatorSoupReturns() async throws {
        let alphabet: [String] = [
            " ", " ", "  ", "\n", "\n", "\t", "- ", "-", ": ", ":", "? ", "[", "]", "{", "}", ",", "#", " #",
            "'", "\"", "\\", "\\n", "|", ">", "|-", ">+", "|2", "a", "b", "key", "1", ".5", "~", "---", "...",
            "!", "&", "*", "%", "@", "\r\n", "é", "\\x4", "\\u00e9",
        ]
        let result = try await Self.readAll {
            var generator = SplitMix64(seed: 42)
            return (0..<20_000).map { _ in
                let count = Int.random(in: 0..<40, using: &generator)
                var text = ""
                for _ in 0..<count { text += alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
                return text
            }
        }
        #expect(result.broken == [])
        #expect(result.accepted > 0 && result.accepted < result.total)
    }

    /// A pathological input, built when its test runs and named by a short label, with the exact
    /// outcome: the error the reader must give, or how many documents it must accept.
    struct Pathological: CustomTestStringConvertible, Sendable {
        let label: String
        let expected: String
        let build: @Sendable () -> String
        var testDescription: String { label }
    }

    static let pathological: [Pathological] = [
        .init(label: "100k [", expected: "1:257: collections are nested more than 256 levels deep") { String(repeating: "[", count: 100_000) },
        .init(label: "50k {a:", expected: "1:1025: collections are nested more than 256 levels deep") { String(repeating: "{a: ", count: 50_000) },
        .init(label: "50k -", expected: "1:513: collections are nested more than 256 levels deep") { String(repeating: "- ", count: 50_000) },
        .init(label: "2k indents", expected: "257:257: collections are nested more than 256 levels deep") {
            (0..<2_000).map { String(repeating: " ", count: $0) + "a:" }.joined(separator: "\n")
        },
        .init(label: "10k+1 \"", expected: "1:3: unexpected '\"' after the value") { String(repeating: "\"", count: 10_001) },
        .init(label: "10k+1 '", expected: "1:1: unterminated single-quoted scalar: missing closing \"'\"") { String(repeating: "'", count: 10_001) },
        .init(label: "100k newlines", expected: "accepted 0") { String(repeating: "\n", count: 100_000) },
        .init(label: "50k a-newline-space", expected: "accepted 1") { String(repeating: "a\n ", count: 50_000) },
        .init(label: "| then 10k newlines", expected: "accepted 1") { "|" + String(repeating: "\n", count: 10_000) + "x" },
    ]

    @Test(arguments: pathological)
    func pathologicalInputsGiveTheirExactOutcome(_ input: Pathological) async throws {
        let outcome = try await BlockingWork.shared.run { () -> String in
            do { return "accepted \(try YAMLReader.documents(input.build()).count)" } catch { return "\(error)" }
        }
        #expect(outcome == input.expected)
    }
}
