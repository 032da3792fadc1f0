import TophhieRules

extension EngineChoice {
    /// The evaluator `TOPHHIE_ENGINE` chooses for a command.
    /// - Throws: `UsageError` (exit 2) for a value that names none.
    static func named(in io: CommandIO) throws -> EngineChoice {
        do { return try EngineChoice(environment: io.environment) } catch let error as EngineChoice.UnknownName { throw UsageError(error.description) }
    }
}
