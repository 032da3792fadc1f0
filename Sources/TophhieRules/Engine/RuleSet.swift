/// The rules the engine runs, with everything the loader had to say about them.
public struct RuleSet: Sendable {
    public var detections: [DetectionRule]
    public var correlations: [CorrelationRule]
    /// Errors, warnings and notes, sorted by file and position. Rules with errors are not in the set.
    public var diagnostics: [RuleDiagnostic]
    /// Documents skipped on purpose (other log sources, filters), as notes also in `diagnostics`.
    public var skippedCount: Int

    public init(detections: [DetectionRule] = [], correlations: [CorrelationRule] = [], diagnostics: [RuleDiagnostic] = [], skippedCount: Int = 0) {
        self.detections = detections
        self.correlations = correlations
        self.diagnostics = diagnostics.sorted()
        self.skippedCount = skippedCount
    }

    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
    public var ruleCount: Int { detections.count + correlations.count }

    /// Adds another set's rules and diagnostics.
    public mutating func merge(_ other: RuleSet) {
        detections += other.detections
        correlations += other.correlations
        diagnostics = (diagnostics + other.diagnostics).sorted()
        skippedCount += other.skippedCount
    }
}
