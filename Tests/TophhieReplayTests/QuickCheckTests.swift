import Foundation
import Testing
import TophhieAuth
import TophhieJSON
@testable import TophhieReplay

/// The quick check a record is first asked (`ExportConversion.plainTime`): the page's first pass
/// and an export's trust it in place of the poll's decoder, so a record it passes must be one the
/// decoder takes, at the same time, with no coordinates to drop.
@Suite struct QuickCheckTests {
    static let usual = """
    {"id":"a1","createdDateTime":"2024-05-01T10:00:00.5Z","status":{"errorCode":0},"location":{"geoCoordinates":{"latitude":51.5,"longitude":-0.1}}}
    """

    /// Records the quick check does not pass, each for its own reason; the decoder reads each.
    static let unusual: [(String, String)] = [
        ("an error code written as text", #"{"id":"a1","createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":"50126"}}"#),
        ("an error code with a fraction", #"{"id":"a1","createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":1.5}}"#),
        ("a status that is a list", #"{"id":"a1","createdDateTime":"2024-05-01T10:00:00Z","status":[0]}"#),
        ("no status", #"{"id":"a1","createdDateTime":"2024-05-01T10:00:00Z"}"#),
        ("an empty id", #"{"id":"","createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":0}}"#),
        ("a number for an id", #"{"id":7,"createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":0}}"#),
        ("a time that is no time", #"{"id":"a1","createdDateTime":"yesterday","status":{"errorCode":0}}"#),
        ("a latitude past the pole", #"{"id":"a1","createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":0},"location":{"geoCoordinates":{"latitude":91,"longitude":0}}}"#),
        ("a longitude past the date line", #"{"id":"a1","createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":0},"location":{"geoCoordinates":{"latitude":0,"longitude":-181}}}"#),
    ]

    @Test func aRecordTheQuickCheckPassesIsTakenByTheDecoderAtTheSameTime() throws {
        let record = try JSONValue.parse(Data(Self.usual.utf8))
        let time = try #require(ExportConversion.plainTime(record))
        #expect(time == (try TophhieSignInEvent(json: record)).createdDateTime)
        var copy = record
        #expect(!ExportConversion.dropBadCoordinates(&copy))
        #expect(GraphTimestamp.alertText(time) == "2024-05-01T10:00:00.500Z")
    }

    @Test func everyOtherRecordIsLeftToTheDecoder() throws {
        for (reason, text) in Self.unusual {
            let record = try JSONValue.parse(Data(text.utf8))
            #expect(ExportConversion.plainTime(record) == nil, "\(reason)")
        }
    }

    /// The verdict is the decoder's either way: the same kept time, the same refusal, the same
    /// coordinates dropped.
    @Test func theVerdictIsTheDecodersWhetherOrNotTheQuickCheckPasses() throws {
        for text in [Self.usual] + Self.unusual.map(\.1) {
            let record = try JSONValue.parse(Data(text.utf8))
            let verdict = try CheckedRecords.verdict(record, raw: record, writing: false)
            switch (verdict, Result { try TophhieSignInEvent(json: record) }) {
            case (.kept(_, let time, let dropped), .success(let event)):
                #expect(time == event.createdDateTime, "\(text)")
                var copy = record
                #expect(dropped == ExportConversion.dropBadCoordinates(&copy), "\(text)")
            case (.refused(let malformed, _), .failure(let error)):
                #expect(malformed.problem == (error as? MalformedSignIn)?.problem, "\(text)")
            default:
                Issue.record("the verdict is not the decoder's for \(text)")
            }
        }
    }
}
