import TophhieRules

extension EngineChoice {
    /// The evaluator a command runs: `TOPHHIE_ENGINE` when set, else the command's own.
    /// - Parameter standard: the command's evaluator (plain for the agent's commands, fast for
    ///   `replay` and `rules match`).
    /// - Throws: `UsageError` (exit 2) for a value that names none.
    static func named(in io: CommandIO, default standard: EngineChoice) throws -> EngineChoice {
        do { return try EngineChoice.forced(by: io.environment) ?? standard } catch let error as EngineChoice.UnknownName { throw UsageError(error.description) }
    }
}
