/// The default rule pack, compiled into the binary (`BuiltInRulePackFiles.swift`, written from
/// `rules/` by `scripts/embed-rules.py`): the last fallback when no rules are configured or
/// installed, so the binary alone monitors and runs `demo` from any folder.
///
/// It is named by the path `builtin:rules` wherever a rule path is taken (`--rules`, `rules:`,
/// `TOPHHIE_RULES`), so a pack of one's own can extend it: `--rules builtin:rules --rules mine/`.
package enum BuiltInRulePack {
    /// The path that names the pack.
    public static let path = "builtin:rules"

    /// The pack's files that `select` picks (by name), as sources named `builtin:rules/<name>`.
    public static func sources(select: (String) -> Bool = RuleSource.isRuleFile) -> [RuleSource] {
        files.filter { select($0.name) }.map { RuleSource(path: path + "/" + $0.name, text: $0.text) }
    }

    /// How many rule files the pack holds.
    public static var ruleFileCount: Int { files.filter { RuleSource.isRuleFile($0.name) }.count }
}
