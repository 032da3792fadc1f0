import Foundation

/// A language a user can pick by name for `preferredLanguage`.
public struct TophhieLanguage: Sendable, Hashable, Identifiable {
    /// The BCP-47 tag Graph stores, such as `en-GB`.
    public let tag: String
    /// The name shown to a person, in that language's own words where it helps.
    public let name: String
    public var id: String { tag }
}

/// The curated list of languages offered for `preferredLanguage`, and the tag check.
public enum TophhieLanguages {
    /// Languages in the order a picker shows them.
    public static let all: [TophhieLanguage] = [
        ("ar-SA", "Arabic (Saudi Arabia)"), ("bg-BG", "Bulgarian"), ("ca-ES", "Catalan"),
        ("cs-CZ", "Czech"), ("cy-GB", "Welsh"), ("da-DK", "Danish"), ("de-AT", "German (Austria)"),
        ("de-CH", "German (Switzerland)"), ("de-DE", "German (Germany)"), ("el-GR", "Greek"),
        ("en-AU", "English (Australia)"), ("en-CA", "English (Canada)"), ("en-GB", "English (United Kingdom)"),
        ("en-IE", "English (Ireland)"), ("en-IN", "English (India)"), ("en-NZ", "English (New Zealand)"),
        ("en-US", "English (United States)"), ("en-ZA", "English (South Africa)"), ("es-ES", "Spanish (Spain)"),
        ("es-MX", "Spanish (Mexico)"), ("et-EE", "Estonian"), ("eu-ES", "Basque"), ("fi-FI", "Finnish"),
        ("fil-PH", "Filipino"), ("fr-BE", "French (Belgium)"), ("fr-CA", "French (Canada)"),
        ("fr-CH", "French (Switzerland)"), ("fr-FR", "French (France)"), ("ga-IE", "Irish"),
        ("gl-ES", "Galician"), ("he-IL", "Hebrew"), ("hi-IN", "Hindi"), ("hr-HR", "Croatian"),
        ("hu-HU", "Hungarian"), ("id-ID", "Indonesian"), ("is-IS", "Icelandic"), ("it-IT", "Italian"),
        ("ja-JP", "Japanese"), ("kk-KZ", "Kazakh"), ("ko-KR", "Korean"), ("lt-LT", "Lithuanian"),
        ("lv-LV", "Latvian"), ("ms-MY", "Malay"), ("nb-NO", "Norwegian Bokmål"), ("nl-BE", "Dutch (Belgium)"),
        ("nl-NL", "Dutch (Netherlands)"), ("pl-PL", "Polish"), ("pt-BR", "Portuguese (Brazil)"),
        ("pt-PT", "Portuguese (Portugal)"), ("ro-RO", "Romanian"), ("ru-RU", "Russian"), ("sk-SK", "Slovak"),
        ("sl-SI", "Slovenian"), ("sr-Latn-RS", "Serbian (Latin)"), ("sv-SE", "Swedish"), ("th-TH", "Thai"),
        ("tr-TR", "Turkish"), ("uk-UA", "Ukrainian"), ("vi-VN", "Vietnamese"), ("zh-CN", "Chinese (Simplified)"),
        ("zh-TW", "Chinese (Traditional)"),
    ].map { TophhieLanguage(tag: $0.0, name: $0.1) }

    /// The curated entry for a tag, compared case-insensitively.
    public static func language(forTag tag: String) -> TophhieLanguage? {
        all.first { $0.tag.caseInsensitiveCompare(tag) == .orderedSame }
    }

    /// Whether `tag` is a well-formed BCP-47 language tag (RFC 5646 syntax: a 2–3 letter language,
    /// optional script, region, variants, extensions and private use). Well-formed, not registered:
    /// Graph keeps tags it does not know, and so do we.
    public static func isValidTag(_ tag: String) -> Bool {
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard let first = subtags.first, !first.isEmpty else { return false }
        func isAlpha(_ s: String, _ range: ClosedRange<Int>) -> Bool {
            range.contains(s.count) && s.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
        }
        func isDigits(_ s: String, _ count: Int) -> Bool {
            s.count == count && s.unicodeScalars.allSatisfy { ("0"..."9").contains($0) }
        }
        func isAlnum(_ s: String, _ range: ClosedRange<Int>) -> Bool {
            range.contains(s.count) && s.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
        }
        if first.lowercased() == "x" {
            return subtags.count > 1 && subtags.dropFirst().allSatisfy { isAlnum($0, 1...8) }
        }
        // RFC 5646 also reserves 4- and 5–8-letter language subtags, but none is in use; a word
        // such as 'english' is far more likely a mistake than a tag.
        guard isAlpha(first, 2...3) else { return false }
        var index = 1
        // Extended language subtags (up to three of three letters) follow a 2–3 letter language.
        var extlangs = 0
        while index < subtags.count, first.count <= 3, extlangs < 3, isAlpha(subtags[index], 3...3) { index += 1; extlangs += 1 }
        if index < subtags.count, isAlpha(subtags[index], 4...4) { index += 1 }
        if index < subtags.count, isAlpha(subtags[index], 2...2) || isDigits(subtags[index], 3) { index += 1 }
        while index < subtags.count {
            let s = subtags[index]
            if isAlnum(s, 5...8) || (s.count == 4 && s.first!.isNumber && isAlnum(s, 4...4)) { index += 1 } else { break }
        }
        while index < subtags.count, subtags[index].count == 1, subtags[index].lowercased() != "x", isAlnum(subtags[index], 1...1) {
            index += 1
            var parts = 0
            while index < subtags.count, isAlnum(subtags[index], 2...8) { index += 1; parts += 1 }
            if parts == 0 { return false }
        }
        if index < subtags.count, subtags[index].lowercased() == "x" {
            index += 1
            var parts = 0
            while index < subtags.count, isAlnum(subtags[index], 1...8) { index += 1; parts += 1 }
            if parts == 0 { return false }
        }
        return index == subtags.count
    }
}
