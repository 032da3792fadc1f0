import Foundation

/// Values for Sigma's `|expand` placeholders (`appId|expand: '%tophhie_client_id%'`), given at
/// load: a rule compiles with them, and nothing is looked up at match time.
///
/// A placeholder with no value stays its literal text, as in a Sigma backend without a
/// placeholder pipeline: `%tophhie_client_id%` is no application id, so it matches nothing.
public struct RulePlaceholders: Sendable, Equatable {
    public var values: [String: [String]]

    public init(_ values: [String: [String]] = [:]) {
        self.values = values
    }

    /// The agent's own app registration, so its own device-code sign-in is told from another's.
    public static let clientID = "tophhie_client_id"
    /// The names Tophhie Watch fills in; any other is reported when a rule uses it.
    public static let known: Set<String> = [clientID]

    /// The agent's placeholders for a configured client id.
    public static func agent(clientID: String?) -> RulePlaceholders {
        RulePlaceholders(clientID.map { [Self.clientID: [$0]] } ?? [:])
    }

    /// What `rules test` uses: a fixed client id test cases can name.
    public static let testing = RulePlaceholders([clientID: ["00000000-0000-4000-8000-0000000c11d0"]])

    /// The name inside `%…%`, or nil for a plain value.
    static func name(in text: String) -> String? {
        guard text.count > 2, text.hasPrefix("%"), text.hasSuffix("%") else { return nil }
        let inner = text.dropFirst().dropLast()
        return inner.contains("%") ? nil : String(inner)
    }
}
