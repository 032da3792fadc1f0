/// The flags in force at a point of the pattern; `(?i)` and friends change them until their group closes.
struct RegexFlags: Sendable, Hashable {
    var ignoreCase = false
    var multiline = false
    var dotMatchesNewline = false
}
