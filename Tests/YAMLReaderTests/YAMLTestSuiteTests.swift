import Foundation
import Testing
import YAMLReader

/// Runs every case of the YAML project's own test suite (`../shared/yaml-test-suite`).
///
/// A case is *accepted* when the reader returns documents matching `in.json`, *rejected* when it
/// throws (because the case is an error, or because it uses something outside the subset), and
/// *wrong* when it returns a value that differs, or returns anything for a case that must fail.
@Suite(.timeLimit(.minutes(20))) struct YAMLTestSuiteTests {
    enum Outcome: Equatable {
        case acceptedRight
        case acceptedUnchecked
        case rejected(String)
        case wrong(String)
    }

    static func run(_ suiteCase: YAMLSuiteCase) -> Outcome {
        let documents: [YAMLNode]
        do {
            documents = try YAMLReader.documents(suiteCase.yaml)
        } catch {
            return .rejected("\(error)")
        }
        if suiteCase.mustFail {
            return .wrong("accepted an error case: \(documents.map(\.jsonText))")
        }
        guard let json = suiteCase.expectedJSON else { return .acceptedUnchecked }
        guard let expected = try? TestJSON.values(json) else { return .acceptedUnchecked }
        guard expected.count == documents.count else {
            return .wrong("\(documents.count) documents, expected \(expected.count)")
        }
        for (node, value) in zip(documents, expected) where !semanticallyMatches(node, value) {
            return .wrong("got \(node.jsonText), expected \(value)")
        }
        return .acceptedRight
    }

    @Test func everyCaseIsReadRightOrRejected() throws {
        let cases = YAMLSuiteCase.all(in: RepositoryPaths.yamlTestSuite)
        try #require(cases.count > 300, "YAML test suite not found at \(RepositoryPaths.yamlTestSuite.path)")
        var right = 0, unchecked = 0, rejectedErrors = 0, rejectedValid = 0
        var wrong: [String] = []
        var rejectedValidCases: [String] = []
        for suiteCase in cases {
            switch Self.run(suiteCase) {
            case .acceptedRight: right += 1
            case .acceptedUnchecked: unchecked += 1
            case .rejected(let why):
                if suiteCase.mustFail {
                    rejectedErrors += 1
                } else {
                    rejectedValid += 1
                    rejectedValidCases.append("\(suiteCase): \(why)")
                }
            case .wrong(let why): wrong.append("\(suiteCase): \(why)")
            }
        }
        print("""
            YAML test suite, \(cases.count) cases: \
            accepted with the right value \(right), \
            rejected \(rejectedErrors + rejectedValid) (\(rejectedErrors) error cases, \(rejectedValid) outside the subset), \
            WRONG \(wrong.count); accepted without an expected value to check \(unchecked)
            """)
        if ProcessInfo.processInfo.environment["YAML_SUITE_VERBOSE"] != nil {
            print(rejectedValidCases.joined(separator: "\n"))
        }
        #expect(wrong.isEmpty, "wrong results:\n\(wrong.joined(separator: "\n"))")
        // Guards against a reader that rejects everything and so is never wrong.
        #expect(right > 150)
    }
}
