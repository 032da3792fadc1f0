import TophhieRules

/// What an option's value (or a command's positional) is: how parsing checks it and how the
/// shells complete it.
public enum ValueKind: Sendable, Equatable {
    /// A flag: no value.
    case none
    /// Any text; nothing to check or offer.
    case text
    /// A whole number within the range.
    case integer(ClosedRange<Int>)
    /// A duration such as `24h`; `like` gives examples, `positive` refuses zero.
    case duration(like: String, positive: Bool)
    /// A file; the shells offer file names.
    case file
    /// A folder; the shells offer folder names.
    case directory
    /// A file or a folder.
    case path
    /// One of `values`; `takes` says so in a refusal ("all, interactive or non-interactive").
    case enumeration([String], takes: String)

    /// `values` as a refusal lists them: `a, b or c`.
    static func listing(_ values: [String]) -> String {
        values.count < 2 ? values.joined() : values.dropLast().joined(separator: ", ") + " or " + values.last!
    }

    /// What a value of this kind is, as it ends "option '--top' takes …"; nil when any text is.
    var takes: String? {
        switch self {
        case .integer(let range): "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .duration(let like, _): "a duration like \(like)"
        case .enumeration(_, let takes): takes
        case .none, .text, .file, .directory, .path: nil
        }
    }

    /// Whether `text` is a value of this kind.
    func accepts(_ text: String) -> Bool {
        switch self {
        case .integer(let range): Int(text).map(range.contains) ?? false
        case .duration(_, let positive): RuleDuration.parse(text).map { !positive || $0.interval > 0 } ?? false
        case .enumeration(let values, _): values.contains(text)
        case .none, .text, .file, .directory, .path: true
        }
    }

    /// The words a shell offers for a value of this kind (empty for files, folders and free text).
    var choices: [String] {
        if case .enumeration(let values, _) = self { return values }
        return []
    }
}
