import Foundation
import TophhieJSON

/// The sentence a person reads for an alert ("Your account was used from Moscow, Russia
/// (95.165.28.126) by Outlook Mobile: …"): the rule's `tophhie.summary` template, filled from the
/// alert's sign-ins, or a plain one from the rule's title for a rule without one (SigmaHQ's).
///
/// The alert's `summary` keeps the engine's own terms (field paths, thresholds) beside it, for
/// machines and for the person tuning a rule. Values come from the data and are
/// attacker-controlled: every channel escapes the sentence as it escapes any text.
package struct AlertSentence: Sendable, Hashable {
    /// What a template may name, each filled from the alert (the last sign-in it shows, unless
    /// said otherwise):
    /// - `place`: "City, Country name"; `country`: the country's name; `address`: the IP
    ///   address; `app`; `device`: "Browser on OS";
    /// - `count`: the sign-ins it accounts for; `span`: the time from its first sign-in to its
    ///   last ("4 minutes");
    /// - `from`, `to`: the places of its first and last sign-in (travel);
    /// - `title`: the rule's title.
    package static let placeholders = Value.allCases.map(\.rawValue)

    /// A value a template names, in the order `placeholders` lists them.
    private enum Value: String, Sendable, Hashable, CaseIterable {
        case place, country, address, app, device, count, span, from, to, title
    }

    private enum Piece: Sendable, Hashable {
        case text(String)
        case value(Value)
    }

    private let pieces: [Piece]

    /// A template: text with `{name}` for each value (`placeholders`); `{{` and `}}` are braces.
    /// - Throws: `AlertSentence.TemplateError` naming an unknown value or an unclosed brace.
    package init(template: String) throws(TemplateError) {
        var pieces: [Piece] = []
        var text = ""
        var rest = Substring(template)
        while let character = rest.first {
            rest = rest.dropFirst()
            if character == "{" && rest.first == "{" || character == "}" && rest.first == "}" {
                text.append(character)
                rest = rest.dropFirst()
            } else if character == "{" {
                guard let close = rest.firstIndex(of: "}") else { throw TemplateError(message: "an unclosed '{' in the summary template") }
                let name = String(rest[..<close])
                guard let value = Value(rawValue: name) else {
                    let meant = NearestName.nearest(name, among: Self.placeholders).map { ": did you mean '{\($0)}'?" } ?? ""
                    throw TemplateError(message: "unknown value '{\(name)}' in the summary template\(meant) (known: \(Self.placeholders.joined(separator: ", ")))")
                }
                if !text.isEmpty { pieces.append(.text(text)); text = "" }
                pieces.append(.value(value))
                rest = rest[rest.index(after: close)...]
            } else if character == "}" {
                throw TemplateError(message: "a '}' without its '{' in the summary template (write '}}' for a brace)")
            } else {
                text.append(character)
            }
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
    }

    /// Why a template cannot be read.
    package struct TemplateError: Error, Sendable, Equatable {
        package let message: String
    }

    /// The sentence for a rule that has no template: its title and the sign-in, or for many
    /// sign-ins how many and over how long.
    package static func plain(forCount count: Int) -> AlertSentence {
        count > 1
            ? AlertSentence(pieces: [.value(.title), .text(": "), .value(.count), .text(" sign-ins in "), .value(.span),
                                     .text(", the last by "), .value(.app), .text(" from "), .value(.place), .text(" ("), .value(.address), .text(")")])
            : AlertSentence(pieces: [.value(.title), .text(": "), .value(.app), .text(" from "), .value(.place), .text(" ("), .value(.address), .text(")")])
    }

    private init(pieces: [Piece]) { self.pieces = pieces }

    /// The sentence for `alert`.
    package func render(_ alert: Alert) -> String {
        // The pieces put together in one allocation, the values named once when the template
        // was read: a list of pieces joined, each value found by comparing its name, was a
        // twelfth of making an alert-heavy replay's alerts.
        TextAssembly.make { sentence in
            for piece in pieces {
                switch piece {
                case .text(let text): sentence.append(text)
                case .value(let value): Self.append(value, of: alert, to: &sentence)
                }
            }
        }
    }

    private static func append(_ value: Value, of alert: Alert, to text: inout TextAssembly) {
        // Each member read where it lies: copying the first and last events out for every value
        // retained and released their dozen strings.
        let events = alert.events, last = events.count - 1
        switch value {
        case .place: appendPlace(last >= 0 ? events[last].location : nil, to: &text)
        case .country: text.append(country(last >= 0 ? events[last].location : nil) ?? "an unknown country")
        case .address: text.append((last >= 0 ? events[last].ipAddress : nil) ?? "an unknown address")
        case .app: text.append((last >= 0 ? events[last].app : nil) ?? "an app")
        case .device: text.append((last >= 0 ? events[last].device : nil) ?? "an unknown device")
        case .count: text.append(Int64(alert.eventCount))
        case .span: text.append(span(alert.lastEventTime.timeIntervalSince(alert.firstEventTime)))
        case .from: appendPlace(last >= 0 ? events[0].location : nil, to: &text)
        case .to: appendPlace(last >= 0 ? events[last].location : nil, to: &text)
        case .title: text.append(alert.rule.title)
        }
    }

    /// "Moscow, Russia" for an event's "Moscow, RU"; the text as it is when its country is no
    /// code ISO assigns.
    package static func place(_ location: String?) -> String? {
        guard let location else { return nil }
        return TextAssembly.make { appendPlace(location, to: &$0) }
    }

    /// `place(location)` appended, or "an unknown place".
    private static func appendPlace(_ location: String?, to text: inout TextAssembly) {
        guard let location else { return text.append("an unknown place") }
        if isCode(location), let name = CountryNames.name(of: location) { return text.append(name) }
        guard let codeStart = afterLastComma(location) else { return text.append(location) }
        let code = location[codeStart...]
        guard isCode(code), let name = CountryNames.name(of: String(code)) else { return text.append(location) }
        // Written as two pieces: the city part and the country's name were a new string joined.
        text.append(location[..<codeStart])
        text.append(name)
    }

    /// Where the text after the last ", " starts. Found in the bytes (a country code is ASCII):
    /// Foundation's backward search, for every alert of an alert-heavy replay, was half of
    /// making its sentences.
    static func afterLastComma(_ text: String) -> String.Index? {
        let bytes = text.utf8
        var index = bytes.endIndex
        while index > bytes.startIndex {
            let space = bytes.index(before: index)
            guard space > bytes.startIndex else { return nil }
            let comma = bytes.index(before: space)
            if bytes[comma] == UInt8(ascii: ","), bytes[space] == UInt8(ascii: " ") { return index }
            index = space
        }
        return nil
    }

    /// Whether `text` could be a country code: two ASCII characters (any other text names none,
    /// and "ß" would upper-case to one).
    static func isCode<Text: StringProtocol>(_ text: Text) -> Bool {
        text.utf8.count == 2 && text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// The country's name alone, from an event's "City, CC" or "CC".
    static func country(_ location: String?) -> String? {
        guard let location else { return nil }
        let code = afterLastComma(location).map { String(location[$0...]) } ?? location
        return isCode(code) ? CountryNames.name(of: code) : nil
    }

    /// The line that names an alert once: a detection's sentence (a template's names what
    /// happened; a plain one begins with the title), or "Title: summary" for a notice, and for
    /// an alert queued before sentences existed.
    package static func titled(_ alert: Alert) -> String {
        alert.sentence == alert.summary ? alert.rule.title + ": " + alert.sentence : alert.sentence
    }

    /// "under a minute", "1 minute", "4 minutes", "3 hours", "2 days".
    package static func span(_ seconds: TimeInterval) -> String {
        let minutes = Int((seconds / 60).rounded())
        func counted(_ n: Int, _ unit: String) -> String { "\(n) \(unit)\(n == 1 ? "" : "s")" }
        if seconds < 60 { return "under a minute" }
        if minutes < 120 { return counted(max(1, minutes), "minute") }
        if minutes < 48 * 60 { return counted(Int((Double(minutes) / 60).rounded()), "hour") }
        return counted(Int((Double(minutes) / 1440).rounded()), "day")
    }
}
