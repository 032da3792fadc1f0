import Foundation
import Testing
import TophhieTestSupport
@testable import TophhieRules

/// The pack compiled into the binary is `rules/`, file for file: a rule changed without
/// running `scripts/embed-rules.py` fails here.
@Suite struct BuiltInRulePackTests {
    @Test func theBuiltInPackIsTheRulesFolder() throws {
        let folder = RepositoryFiles.root.appendingPathComponent("rules").path
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(BuiltInRulePack.files.map(\.name) == names, "run scripts/embed-rules.py")
        for file in BuiltInRulePack.files {
            let text = try String(contentsOfFile: folder + "/" + file.name, encoding: .utf8)
            #expect(file.text == text, "\(file.name) differs from rules/: run scripts/embed-rules.py")
        }
    }

    /// Named by its path, it loads as the folder does, without errors, tests and all.
    @Test func itLoadsLikeTheFolder() throws {
        let folder = RepositoryFiles.root.appendingPathComponent("rules").path
        let builtIn = RuleLoader.load(try RuleSource.read(paths: [BuiltInRulePack.path]))
        let fromDisk = RuleLoader.load(try RuleSource.read(paths: [folder]))
        #expect(!builtIn.hasErrors)
        #expect(builtIn.ruleCount == fromDisk.ruleCount && builtIn.ruleCount > 0)
        #expect(try RuleSource.read(paths: [BuiltInRulePack.path], select: RuleSource.isTestFile).count == BuiltInRulePack.ruleFileCount)
        #expect(try RuleSource.read(paths: [BuiltInRulePack.path]).first?.path == "builtin:rules/account-lockout.yml")
    }
}
