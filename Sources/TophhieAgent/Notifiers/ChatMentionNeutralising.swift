import TophhieJSON

/// Makes attacker-controlled text inert when a receiver's template forwards it to chat.
///
/// The generic, PagerDuty and Alertmanager bodies are often pasted into Slack, Teams or Discord
/// by the receiver. A device named `<!channel>` or `@everyone` would then page a whole
/// workspace, and `<https://evil|Open Outlook>` would become a link. The character that starts
/// the markup is swapped for a visible look-alike that no service parses: `<` for `‹` (U+2039)
/// and `@` for `＠` (U+FF20). Text without such markup is left exactly as it was.
public enum ChatMentionNeutralising {
    /// What may follow `<` to make chat markup: Slack's `<!here>`, `<@U…>`, `<#C…>` and links,
    /// Discord's `<@id>`, `<@&role>`, `<#channel>`, Teams' `<at>`.
    static let markupAfterAngle = ["!", "@", "#", "at>", "http:", "https:", "mailto:", "tel:"]
    /// Bare mentions Discord, Slack and Teams expand.
    static let bareMentions = ["everyone", "here", "channel"]

    /// `text` with chat mention and link markup neutralised.
    /// - Complexity: O(n).
    public static func neutralise(_ text: String) -> String {
        guard text.contains("<") || text.contains("@") else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "<", markupAfterAngle.contains(where: { follows($0, scalars, index + 1) }) {
                out.append("\u{2039}")
            } else if scalar == "@", startsWord(scalars, index), bareMentions.contains(where: { follows($0, scalars, index + 1) && endsWord(scalars, index + 1 + $0.unicodeScalars.count) }) {
                out.append("\u{FF20}")
            } else {
                out.append(scalar)
            }
            index += 1
        }
        return String(out)
    }

    /// A JSON value with every string neutralised.
    public static func neutraliseStrings(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): return .string(neutralise(text))
        case .array(let items): return .array(items.map(neutraliseStrings))
        case .object(let members): return .object(members.mapValues(neutraliseStrings))
        default: return value
        }
    }

    /// Whether `word` (ASCII, compared case-insensitively) starts at `start`.
    private static func follows(_ word: String, _ scalars: [Unicode.Scalar], _ start: Int) -> Bool {
        var index = start
        for expected in word.unicodeScalars {
            guard index < scalars.count, String(scalars[index]).lowercased() == String(expected) else { return false }
            index += 1
        }
        return true
    }

    private static func startsWord(_ scalars: [Unicode.Scalar], _ index: Int) -> Bool {
        index == 0 || !isWordScalar(scalars[index - 1])
    }

    private static func endsWord(_ scalars: [Unicode.Scalar], _ index: Int) -> Bool {
        index >= scalars.count || !isWordScalar(scalars[index])
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar == "_"
    }
}
