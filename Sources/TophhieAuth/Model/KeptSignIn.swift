import Foundation
import TophhieJSON

/// A sign-in as a poll holds it: its id, time, stream and revision, and the answer to each path
/// its rules read, taken once from the whole record (or the whole record, where a keyword search
/// reads every string of it).
///
/// A first poll holds tens of thousands of sign-ins; a record's answers in one array, their
/// repeated texts shared across the poll, cost a fraction of its tree of dictionaries. A class,
/// so an evaluator's `any` box holds a reference, not a copy.
public final class KeptSignIn: Sendable {
    public let id: String
    /// UTC.
    public let createdDateTime: Date
    /// The stream it was read from.
    public let stream: SignInStream
    /// A digest of the whole record as Graph sent it (`SignInKeeping.digest`), so a change in a
    /// field no rule reads is still an update. Never nil; optional as evaluators take it.
    public let revision: String?
    private let content: Content

    private enum Content: Sendable {
        /// `layout.paths[i]`'s value is `answers[i]`.
        case answers([JSONValue?], SignInKeeping.Layout)
        case whole(JSONValue)
    }

    init(id: String, createdDateTime: Date, stream: SignInStream, revision: String, answers: [JSONValue?], layout: SignInKeeping.Layout) {
        self.id = id
        self.createdDateTime = createdDateTime
        self.stream = stream
        self.revision = revision
        content = .answers(answers, layout)
    }

    init(whole event: TophhieSignInEvent, revision: String) {
        id = event.id
        createdDateTime = event.createdDateTime
        stream = event.stream
        self.revision = revision
        content = .whole(event.json)
    }

    /// The value at `components`, as the whole record answers it; nil when absent, and for a
    /// path this sign-in was not kept for.
    public func value(at components: [String]) -> JSONValue? {
        switch content {
        case .whole(let json): return json.value(at: components)
        case .answers(let answers, let layout): return layout.index[components].flatMap { answers[$0] }
        }
    }

    /// The whole record, where it was kept whole; nil where only answers were.
    public var record: JSONValue? {
        if case .whole(let json) = content { return json }
        return nil
    }

    /// The values kept, in the order of the keeping's paths (absent ones left out); the whole
    /// record alone where it was kept whole.
    public var keptValues: [JSONValue] {
        switch content {
        case .whole(let json): return [json]
        case .answers(let answers, _): return answers.compactMap { $0 }
        }
    }

    /// Whether its place is unknown to the rules (`TophhieSignInEvent.locationUnknown`).
    public var locationUnknown: Bool {
        TophhieSignInEvent.locationUnknown(country: value(at: SignInKeeping.countryPath)?.stringValue,
                                           latitude: value(at: SignInKeeping.latitudePath)?.doubleValue,
                                           longitude: value(at: SignInKeeping.longitudePath)?.doubleValue)
    }

    /// Whether its coordinates are no place's (`TophhieSignInEvent.outOfRange`).
    public var coordinatesOutOfRange: Bool {
        TophhieSignInEvent.outOfRange(latitude: value(at: SignInKeeping.latitudePath)?.doubleValue,
                                      longitude: value(at: SignInKeeping.longitudePath)?.doubleValue)
    }
}
