import Foundation
import TophhieAgent
import TophhieRules

/// `tophhie-watch rules check [PATH…]`: validates rule files and folders.
enum RulesCheckCommand: CLICommand {
    struct Options: OptionGroup {
        var quiet: Option<Bool> = .flag("quiet", help: "print errors only, not warnings and notes")
        var strict: Option<Bool> = .flag("strict", help: "a warning fails the check too (exit 1)")
        var api: Option<SignInSchema> = .choice("api", among: SignInSchema.allCases, default: .beta, help: "the Graph version the rules will read (default beta, as graph.api): a field it lacks is a warning")
    }

    static let about = CommandAbout(
        path: ["rules", "check"],
        summary: "Validate rule files and folders; every problem as file:line:col.",
        positionals: "[PATH…]",
        positionalKind: .path,
        discussion: """
        Reads Sigma detection and correlation rules (and this project's first_seen and
        impossible_travel extensions). Files ending in .tests.yml are test cases, not rules.
        Rules for other log sources are skipped with a note, so a whole Sigma folder can be checked.
        With no PATH, checks ./rules. Fields only Graph beta has (authenticationDetails,
        originalTransferMethod, authenticationRequirement…) are warned of with --api v1.0 alone.

        The rules are read as the agent reads them: a value test on a field the signIn resource
        does not have (a misspelling such as deviceDetail.operatingSystm) is an error, with the
        field it was likely meant to be, unless the rule sets tophhie: {allow-unknown-fields: true}.

        Exit status: 0 when every rule loads, 1 with --strict when there are warnings, 2 on any
        error.

        examples:
          tophhie-watch rules check
          tophhie-watch rules check --strict rules/ ~/my-rules
          tophhie-watch rules check --api v1.0
        """)

    static func run(_ options: ParsedOptions<Options>, io: CommandIO) async throws -> ExitCode {
        let paths = options.positionals.isEmpty ? ConnectionOptions.defaultRulePaths(io) : options.positionals
        let sources = try RuleFiles.read(paths)
        let set = RuleLoader.load(sources, placeholders: .testing, schema: options.api, refuseUnknownFields: true)
        let quiet = options.quiet
        for diagnostic in set.diagnostics where !quiet || diagnostic.severity == .error {
            io.out(ControlCharacterEscaping.escape(diagnostic.description) + "\n")
        }
        let errors = set.diagnostics.filter { $0.severity == .error }.count
        let warnings = set.diagnostics.filter { $0.severity == .warning }.count
        io.out("\(set.ruleCount) rule(s) loaded (\(set.detections.count) detection, \(set.correlations.count) correlation) from \(sources.count) file(s); \(set.skippedCount) skipped; \(errors) error(s), \(warnings) warning(s)\n")
        if errors > 0 { return .usage }
        return options.strict && warnings > 0 ? .failure : .ok
    }
}

/// Reads rule paths for the rules commands, turning a missing path into a usage error.
enum RuleFiles {
    /// The rules for a command that runs them: every error printed, then a usage error.
    /// `%tophhie_client_id%` is the configured client id (config file or `TOPHHIE_CLIENT_ID`).
    /// - Parameters:
    ///   - connection: the command's connection options, when it takes them.
    ///   - warnings: for the commands that read files (`replay`, `rules match`): their warnings
    ///     (a rule that could never fire, a slow keyword search) are printed on standard error as
    ///     `rules check` prints them, and with `strict` they are an error (exit 2).
    static func loadRunnable(_ paths: [String], io: CommandIO, connection: ParsedOptions<ConnectionOptions> = .none,
                             warnings: (command: String, strict: Bool)? = nil) throws -> RuleSet {
        let clientID = (try? ConnectionOptions.watchedConfiguration(connection, io: io))?.clientID
        let set = RuleLoader.load(try read(paths), placeholders: .agent(clientID: clientID))
        let errors = set.diagnostics.filter { $0.severity == .error }
        guard errors.isEmpty else {
            for diagnostic in errors { io.err(ControlCharacterEscaping.escape(diagnostic.description) + "\n") }
            throw UsageError("the rules have \(errors.count) error(s); run 'tophhie-watch rules check'")
        }
        if let warnings {
            let found = set.diagnostics.filter { $0.severity == .warning }
            for diagnostic in found { io.err(ControlCharacterEscaping.escape(diagnostic.description) + "\n") }
            if warnings.strict, !found.isEmpty {
                throw UsageError("the rules have \(found.count) warning(s), and --strict makes them errors; run 'tophhie-watch rules check'")
            }
        }
        return set
    }

    static func read(_ paths: [String], select: (String) -> Bool = RuleSource.isRuleFile) throws -> [RuleSource] {
        do {
            return try RuleSource.read(paths: paths, select: select)
        } catch let error as RuleFileError {
            throw UsageError(error.description)
        }
    }
}
