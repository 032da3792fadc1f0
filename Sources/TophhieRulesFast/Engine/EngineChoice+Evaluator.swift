import TophhieRules

extension Engine: RuleEvaluator {
    package var eventPaths: [[String]]? { plan.referencedPaths }
}

extension EngineChoice {
    /// This choice's evaluator for the rules.
    package func evaluator(rules: RuleSet, settings: EngineSettings = EngineSettings()) -> any RuleEvaluator {
        switch self {
        case .plain: return PlainEvaluator(rules: rules, settings: settings)
        case .fast: return Engine(rules: rules, settings: settings)
        }
    }
}
