import Foundation
import Testing
import YAMLReader

/// The SigmaHQ Azure sign-in rules in `../shared/sigma` are what the reader exists for.
@Suite(.timeLimit(.minutes(20))) struct SigmaRuleFileTests {
    static let folder = RepositoryPaths.shared.appendingPathComponent("sigma")

    static let ruleFiles: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".yml") }.sorted()
    }()

    @Test func rulesArePresent() {
        #expect(Self.ruleFiles.count >= 18)
    }

    @Test(arguments: ruleFiles)
    func ruleReadsAsOneMapping(_ name: String) throws {
        let data = try #require(FileManager.default.contents(atPath: Self.folder.appendingPathComponent(name).path))
        let rule = try YAMLReader.document(String(decoding: data, as: UTF8.self))
        #expect(rule.mark == YAMLMark(line: 1, column: 1))
        for key in ["title", "id", "logsource", "detection", "level"] {
            #expect(rule.mappingValue(forKey: key) != nil, "\(name) has no \(key)")
        }
        let condition = rule.mappingValue(forKey: "detection")?.mappingValue(forKey: "condition")
        #expect(condition?.scalarText?.isEmpty == false)
        #expect(rule.mappingValue(forKey: "logsource")?.mappingValue(forKey: "service")?.scalarText == "signinlogs")
    }

    @Test func accountLockoutValues() throws {
        let data = try #require(FileManager.default.contents(atPath: Self.folder.appendingPathComponent("azure_account_lockout.yml").path))
        let rule = try YAMLReader.document(String(decoding: data, as: UTF8.self))
        let resultType = rule.mappingValue(forKey: "detection")?.mappingValue(forKey: "selection")?.mappingValue(forKey: "ResultType")
        #expect(resultType?.scalar?.coreValue == .int(50053))
        #expect(resultType?.mark == YAMLMark(line: 18, column: 21))
        // The core schema has no timestamps: a date stays a string.
        #expect(rule.mappingValue(forKey: "date")?.scalar?.coreValue == .string("2021-10-10"))
        #expect(rule.mappingValue(forKey: "tags")?.jsonText == #"["attack.credential-access","attack.t1110"]"#)
    }
}
