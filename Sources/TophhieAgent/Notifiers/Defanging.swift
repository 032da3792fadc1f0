/// Makes URLs, domains and addresses in attacker-controlled text unclickable, as security tools
/// write indicators: `https://evil.com/x` becomes `hxxps://evil[.]com/x`, `evil.com` becomes
/// `evil[.]com`, `203.0.113.9` becomes `203[.]0[.]113[.]9`.
///
/// Phone apps (ntfy, Gotify, Telegram) and mail readers turn plain text that looks like a link
/// into one: a device named `login.microsoftonline.com.evil.example` inside a security alert
/// would be a phishing link one tap away. Text with no dotted name and no scheme is unchanged
/// (`Firefox 115.0`, `Paris, FR`).
public enum Defanging {
    /// Full stops that link detectors and browsers read as a dot between labels.
    static let dots: Set<Character> = [".", "\u{3002}", "\u{FF0E}", "\u{FF61}"]

    /// `text` defanged.
    /// - Complexity: O(n).
    public static func defang(_ text: String) -> String {
        guard text.contains(where: { dots.contains($0) || $0 == ":" }) else { return text }
        var out = ""
        var token = ""
        func flush() {
            out += defangToken(token)
            token = ""
        }
        for character in text {
            if isTokenCharacter(character) {
                token.append(character)
            } else {
                flush()
                out.append(character)
            }
        }
        flush()
        return out
    }

    /// Letters, digits and the characters of host names, URLs and mail addresses.
    static func isTokenCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || dots.contains(character)
            || "-_:/@%?&=#+~!$*',;[]".contains(character)
    }

    static func defangToken(_ token: String) -> String {
        guard !token.isEmpty else { return token }
        var text = token
        // Schemes: http(s) and ftp as security tools write them, any other `x://` broken.
        if let range = text.range(of: "://") {
            let scheme = text[..<range.lowerBound].lowercased()
            let rest = String(text[range.upperBound...])
            let prefix = String(text[..<range.lowerBound])
            if scheme.hasSuffix("https") { text = String(prefix.dropLast(5)) + "hxxps://" + rest }
            else if scheme.hasSuffix("http") { text = String(prefix.dropLast(4)) + "hxxp://" + rest }
            else if scheme.hasSuffix("ftp") { text = String(prefix.dropLast(3)) + "fxp://" + rest }
            else { text = prefix + "[:]//" + rest }
        }
        guard text.contains(where: { dots.contains($0) }), looksLikeHostOrAddress(text) else { return text }
        var out = ""
        for character in text {
            if dots.contains(character) { out += "[.]" } else { out.append(character) }
        }
        return out
    }

    /// Whether some dotted run in `token` is a domain (its last label letters, two or more) or
    /// an IPv4 address (four numbers).
    static func looksLikeHostOrAddress(_ token: String) -> Bool {
        let runs = token.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-" || dots.contains($0)) })
        for run in runs {
            let labels = run.split(omittingEmptySubsequences: false, whereSeparator: { dots.contains($0) }).map(String.init)
            guard labels.count >= 2 else { continue }
            let nonEmpty = labels.filter { !$0.isEmpty }
            guard nonEmpty.count >= 2 else { continue }
            if let last = nonEmpty.last, last.count >= 2, last.allSatisfy({ $0.isLetter || $0 == "-" }), last.contains(where: { $0.isLetter }) { return true }
            if nonEmpty.count == 4, nonEmpty.allSatisfy({ $0.count <= 3 && $0.allSatisfy({ $0.isASCII && $0.isNumber }) }) { return true }
        }
        return false
    }
}
