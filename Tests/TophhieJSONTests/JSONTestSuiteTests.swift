import Foundation
import Testing
@testable import TophhieJSON

/// The JSONTestSuite parsing corpus (nst/JSONTestSuite, MIT, in ../shared/json-test-suite):
/// `y_` files must parse, `n_` files must be refused with a JSON error, `i_` files may go
/// either way but must not crash or hang.
@Suite(.timeLimit(.minutes(20))) struct JSONTestSuiteTests {
    static let directory: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
        }
        return url.appendingPathComponent("../shared/json-test-suite/test_parsing").standardized
    }()

    static let files: [String] = (try? FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted()) ?? []

    static func contents(_ name: String) -> Data {
        FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) ?? Data()
    }

    @Test func theCorpusIsThere() {
        #expect(Self.files.filter { $0.hasPrefix("y_") }.count == 95)
        #expect(Self.files.filter { $0.hasPrefix("n_") }.count == 188)
        #expect(Self.files.filter { $0.hasPrefix("i_") }.count == 35)
    }

    @Test func everyYFileIsAccepted() {
        let refused = Self.files.filter { $0.hasPrefix("y_") }.filter { (try? JSONValue.parse(Self.contents($0))) == nil }
        #expect(refused == [])
    }

    @Test func everyNFileIsRefused() {
        let accepted = Self.files.filter { $0.hasPrefix("n_") }.filter { (try? JSONValue.parse(Self.contents($0))) != nil }
        #expect(accepted == [])
    }

    @Test func everyIFileEndsWithAValueOrAnError() {
        // Implementation-defined: the point is an answer, no crash, for each.
        var answered = 0
        for name in Self.files where name.hasPrefix("i_") {
            _ = try? JSONValue.parse(Self.contents(name))
            answered += 1
        }
        #expect(answered == 35)
    }
}
