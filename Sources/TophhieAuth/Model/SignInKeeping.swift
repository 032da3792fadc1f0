import Foundation
import TophhieJSON

/// What a poll keeps of each sign-in it decodes: the answers to the paths its rules read, so a
/// first poll over a long lookback holds a few values per sign-in rather than every record
/// whole, and the digest of the whole record, so a change anywhere in it still counts.
public struct SignInKeeping: Sendable {
    /// The paths answered; nil keeps every record whole (a keyword search reads all of it).
    public let layout: Layout?
    /// A digest of a whole record, taken before the rest is dropped.
    public let digest: @Sendable (JSONValue) -> String

    /// - Parameter paths: the paths to answer (the country and coordinates are added: the poll
    ///   counts unknown places); nil keeps every record whole.
    public init(paths: [[String]]?, digest: @escaping @Sendable (JSONValue) -> String) {
        layout = paths.map { Layout(paths: $0 + [Self.countryPath, Self.latitudePath, Self.longitudePath]) }
        self.digest = digest
    }

    /// Each path kept, numbered.
    public struct Layout: Sendable {
        public let paths: [[String]]
        let index: [[String]: Int]

        init(paths: [[String]]) {
            var index: [[String]: Int] = [:]
            var unique: [[String]] = []
            for path in paths where index[path] == nil {
                index[path] = unique.count
                unique.append(path)
            }
            self.paths = unique
            self.index = index
        }
    }

    static let countryPath = ["location", "countryOrRegion"]
    static let latitudePath = ["location", "geoCoordinates", "latitude"]
    static let longitudePath = ["location", "geoCoordinates", "longitude"]

    /// `event` as kept.
    public func keep(_ event: TophhieSignInEvent) -> KeptSignIn {
        var texts = SharedTexts()
        return keep(event, texts: &texts)
    }

    /// `event` as kept: its answers, their texts shared through `texts` with the fetch's other
    /// sign-ins (an app's name or an address repeats across thousands of them).
    func keep(_ event: TophhieSignInEvent, texts: inout SharedTexts) -> KeptSignIn {
        let revision = digest(event.json)
        guard let layout else { return KeptSignIn(whole: event, revision: revision) }
        let answers = layout.paths.map { event.json.value(at: $0).map { texts.shared($0) } }
        return KeptSignIn(id: event.id, createdDateTime: event.createdDateTime, stream: event.stream, revision: revision, answers: answers, layout: layout)
    }
}

/// One copy of each text a fetch keeps: equal strings then share their storage.
struct SharedTexts {
    private var texts: Set<String> = []

    /// `value` with each of its strings replaced by the copy already held, where there is one.
    mutating func shared(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): return .string(texts.insert(text).memberAfterInsert)
        case .array(let items): return .array(items.map { shared($0) })
        case .object(let members): return .object(members.mapValues { shared($0) })
        default: return value
        }
    }
}
