import Foundation

/// One poll's events through a rule set: the `PlainEvaluator` the agent runs, or replay's fast
/// engine (`TophhieRulesFast`), held to it by the meaning tests. Both read and write the same
/// `EngineState`, so either may follow the other.
public protocol RuleEvaluator: Sendable {
    var settings: EngineSettings { get }
    /// The rules it runs (what `RuleSet.placeLearning` reads the state by).
    var rules: RuleSet { get }

    /// Runs one poll's events (any order) through every rule.
    /// - Parameters:
    ///   - now: the poll's wall-clock time.
    ///   - alertOnlyAfter: alerts whose last event is at or before this are withheld (learning).
    /// - Returns: the state, the alerts sorted by last event time, rule and id, and the late arrivals.
    func evaluate(_ state: EngineState, events: [any RuleEvent], now: Date, alertOnlyAfter: Date?) -> EngineOutcome

    /// The Graph paths of a sign-in the rules and the evaluator read, as components; nil when a
    /// keyword search reads every string. A caller holding many sign-ins may keep only these.
    var eventPaths: [[String]]? { get }
}

extension PlainEvaluator: RuleEvaluator {
    public var eventPaths: [[String]]? { graph.eventPaths }
}

/// Which evaluator runs the rules. Each command has its own: the agent, `rules test`, the demo
/// and the report run the plain one, `replay` and `rules match` the fast one;
/// `TOPHHIE_ENGINE=plain` or `fast` forces either, so anyone can compare the two on their own
/// sign-ins (the same output).
public enum EngineChoice: String, Sendable, CaseIterable {
    case plain
    case fast

    /// The name of the environment variable that chooses.
    public static let variable = "TOPHHIE_ENGINE"

    /// The choice a process environment forces; nil when unset or empty. `reference`, the plain
    /// evaluator's earlier name, is still read as `plain`.
    /// - Throws: `EngineChoice.UnknownName` for any other value.
    public static func forced(by environment: [String: String]) throws -> EngineChoice? {
        let value = environment[EngineChoice.variable] ?? ""
        guard !value.isEmpty else { return nil }
        if value == "reference" { return .plain }
        guard let choice = EngineChoice(rawValue: value) else { throw UnknownName(value: value) }
        return choice
    }

    /// A value of `TOPHHIE_ENGINE` that names no evaluator.
    public struct UnknownName: Error, Sendable, CustomStringConvertible {
        public var value: String
        public var description: String { "\(EngineChoice.variable) must be 'plain' or 'fast' (or unset), not '\(value)'" }
    }
}
