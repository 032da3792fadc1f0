/// The Sigma value modifiers this engine implements (`field|contains|all: [...]`); `expand`
/// is applied when a rule is read (`RulePlaceholders`).
package enum ValueModifier: String, Sendable, Hashable, CaseIterable {
    case contains, startswith, endswith, all
    case re, i, m, s
    case cidr
    case gt, gte, lt, lte
    case exists, cased, fieldref, neq

    /// Modifiers from the Sigma appendix that are recognised but not implemented, so the
    /// message can say "not supported" rather than "unknown".
    static let recognisedButUnsupported: Set<String> = [
        "windash", "base64", "base64offset", "utf16le", "utf16be", "utf16", "wide",
        "minute", "hour", "day", "week", "month", "year",
    ]

    /// pySigma's long names for the regex flags.
    static let aliases: [String: ValueModifier] = ["ignorecase": .i, "multiline": .m, "dotall": .s]
}
