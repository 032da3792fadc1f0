/// What every rule carries besides its logic: who it is, how bad, and where it was written.
public struct RuleMetadata: Sendable, Hashable {
    /// The rule's `id`; in this project's pack it equals the file name.
    public var id: String
    /// Sigma's optional `name`, which correlations may reference instead of the id.
    public var name: String?
    public var title: String
    public var level: AlertLevel
    public var status: String?
    public var description: String?
    public var author: String?
    public var tags: [String]
    /// Where the rule's document starts, for diagnostics.
    public var file: String
    public var line: Int

    public init(id: String, name: String? = nil, title: String, level: AlertLevel = .medium, status: String? = nil, description: String? = nil, author: String? = nil, tags: [String] = [], file: String = "<memory>", line: Int = 1) {
        self.id = id
        self.name = name
        self.title = title
        self.level = level
        self.status = status
        self.description = description
        self.author = author
        self.tags = tags
        self.file = file
        self.line = line
    }
}

/// Engine settings Sigma leaves to implementations, kept under the rule's `tophhie:` key so
/// the rule file stays portable (rsigma keeps its own under `rsigma:` the same way).
package struct RuleEngineOptions: Sendable, Hashable {
    /// How long after an alert the same rule and group stay quiet, in event time. Nil means the
    /// default: the correlation's timespan, or no suppression for single-event rules.
    public var suppress: RuleDuration?
    /// Replaces the rule's level in its alerts.
    public var level: AlertLevel?
    /// For a single-event rule: the fields whose values name the group its suppression applies
    /// to. Nil means `RuleEngineOptions.defaultSingleEventGroup`. Correlations use their own
    /// `group-by`.
    public var groupBy: [String]?
    /// The sentence its alerts read as (`tophhie.summary`); nil builds one from the title.
    package var summary: AlertSentence?

    /// The user and the address: two risky sign-ins from different places are two stories.
    public static let defaultSingleEventGroup = ["userId", "ipAddress"]

    public init(suppress: RuleDuration? = nil, level: AlertLevel? = nil, groupBy: [String]? = nil) {
        self.suppress = suppress
        self.level = level
        self.groupBy = groupBy
    }
}

/// A Sigma detection rule: one event in, match or not.
public struct DetectionRule: Sendable, Hashable {
    public var metadata: RuleMetadata
    package var detection: Detection
    package var options: RuleEngineOptions

    package init(metadata: RuleMetadata, detection: Detection, options: RuleEngineOptions = RuleEngineOptions()) {
        self.metadata = metadata
        self.detection = detection
        self.options = options
    }
}
