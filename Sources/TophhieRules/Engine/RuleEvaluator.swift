import Foundation

/// One poll's events through a rule set: the fast `Engine`, or the `ReferenceEvaluator` it is
/// checked against. Both read and write the same `EngineState`.
public protocol RuleEvaluator: Sendable {
    var settings: EngineSettings { get }

    /// Runs one poll's events (any order) through every rule.
    /// - Parameters:
    ///   - now: the poll's wall-clock time.
    ///   - alertOnlyAfter: alerts whose last event is at or before this are withheld (learning).
    /// - Returns: the state, the alerts sorted by last event time, rule and id, and the late arrivals.
    func evaluate(_ state: EngineState, events: [any RuleEvent], now: Date, alertOnlyAfter: Date?) -> EngineOutcome
}

extension Engine: RuleEvaluator {}
extension ReferenceEvaluator: RuleEvaluator {}

/// Which evaluator runs the rules: `TOPHHIE_ENGINE=reference` makes `poll`, `run`, `replay`,
/// `rules match` and `rules test` use the reference evaluator (the same output, slower), so
/// anyone can compare the two on their own sign-ins.
public enum EngineChoice: String, Sendable, CaseIterable {
    case fast
    case reference

    /// The name of the environment variable that chooses.
    public static let variable = "TOPHHIE_ENGINE"

    /// The choice a process environment makes: unset or empty is `fast`.
    /// - Throws: `EngineChoice.UnknownName` for any other value.
    public init(environment: [String: String]) throws {
        let value = environment[EngineChoice.variable] ?? ""
        guard !value.isEmpty else { self = .fast; return }
        guard let choice = EngineChoice(rawValue: value) else { throw UnknownName(value: value) }
        self = choice
    }

    /// A value of `TOPHHIE_ENGINE` that names no evaluator.
    public struct UnknownName: Error, Sendable, CustomStringConvertible {
        public var value: String
        public var description: String { "\(EngineChoice.variable) must be 'reference' or 'fast' (or unset), not '\(value)'" }
    }

    /// This choice's evaluator for the rules.
    public func evaluator(rules: RuleSet, settings: EngineSettings = EngineSettings()) -> any RuleEvaluator {
        switch self {
        case .fast: return Engine(rules: rules, settings: settings)
        case .reference: return ReferenceEvaluator(rules: rules, settings: settings)
        }
    }
}
