import Foundation
import Testing
import TophhieJSON
@testable import TophhieAuth

@Suite(.timeLimit(.minutes(20))) struct SignInEventTests {
    static let sharedFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared")

    func event(_ text: String) throws -> TophhieSignInEvent {
        try TophhieSignInEvent(json: JSONValue.parse(Data(text.utf8)))
    }

    @Test func decodesTheDocumentedResponse() throws {
        let data = try Data(contentsOf: Self.sharedFolder.appendingPathComponent("reference/signin-example.json"))
        let page = try JSONValue.parse(data)
        guard case .array(let items)? = page["value"] else { Issue.record("no value array"); return }
        let event = try TophhieSignInEvent(json: items[0])
        #expect(event.id == "66ea54eb-6301-4ee5-be62-ff5a759b0100")
        #expect(abs(event.createdDateTime.timeIntervalSince1970 - 1_584_126_941.6195833) < 1e-5)
        #expect(event.wasSuccessful)
        #expect(event.locationText == "Redmond, US")
        #expect(event.deviceText == "Edge 80.0.361 on Windows 10")
        #expect(event.userId == "26be570a-ae82-4189-b4e2-a37c6808512d")
        #expect(event.conditionalAccessStatus == "notApplied")
        #expect(event.location?.geoCoordinates?.latitude == 47.68050003051758)
        #expect(event.location?.geoCoordinates?.altitude == nil)
        #expect(event.field("appliedConditionalAccessPolicies.1.displayName")?.stringValue == "Medium signin risk block")
        #expect(event.field("deviceDetail.trustType") == .null)
        #expect(event.field("noSuchField") == nil)
    }

    @Test(arguments: [
        ("2020-03-13T19:15:41.6195833Z", 1_584_126_941.6195833),
        ("2020-03-13T19:15:41Z", 1_584_126_941.0),
    ])
    func parsesBothDateForms(text: String, epoch: Double) throws {
        let e = try event(#"{"id":"a","createdDateTime":"\#(text)","status":{"errorCode":0}}"#)
        #expect(abs(e.createdDateTime.timeIntervalSince1970 - epoch) < 1e-5)
    }

    @Test(arguments: [
        (#"{"city":"Leeds","countryOrRegion":"GB"}"#, "Leeds, GB" as String?),
        (#"{"city":"Leeds"}"#, "Leeds"),
        (#"{"countryOrRegion":"GB","city":null}"#, "GB"),
        (#"{"city":"","countryOrRegion":" "}"#, nil),
        ("{}", nil),
        ("null", nil),
    ])
    func locationText(location: String, expected: String?) throws {
        let e = try event(#"{"id":"a","createdDateTime":"2020-03-13T19:15:41Z","status":{"errorCode":0},"location":\#(location)}"#)
        #expect(e.locationText == expected)
    }

    @Test(arguments: [
        (#"{"browser":"Safari","operatingSystem":"iOS"}"#, "Safari on iOS" as String?),
        (#"{"browser":"Safari"}"#, "Safari"),
        (#"{"operatingSystem":"iOS","browser":null}"#, "iOS"),
        (#"{"browser":"","operatingSystem":""}"#, nil),
        ("{}", nil),
    ])
    func deviceText(device: String, expected: String?) throws {
        let e = try event(#"{"id":"a","createdDateTime":"2020-03-13T19:15:41Z","status":{"errorCode":0},"deviceDetail":\#(device)}"#)
        #expect(e.deviceText == expected)
    }

    @Test func toleratesUnknownEnumsAndNulls() throws {
        let e = try event(#"{"id":"a","createdDateTime":"2020-03-13T19:15:41Z","status":{"errorCode":50126,"failureReason":null},"conditionalAccessStatus":"somethingNew","riskLevelDuringSignIn":"hidden","isInteractive":null,"deviceDetail":null,"newField":{"x":1}}"#)
        #expect(!e.wasSuccessful)
        #expect(e.conditionalAccessStatus == "somethingNew")
        #expect(e.riskLevelDuringSignIn == "hidden")
        #expect(e.isInteractive == nil)
        #expect(e.deviceDetail == nil)
        #expect(e.field("newField.x") == .int(1))
    }

    @Test(arguments: [
        (#"{"createdDateTime":"2020-03-13T19:15:41Z","status":{"errorCode":0}}"#, "sign-in event without an id skipped: 'id' is missing or not a string"),
        (#"{"id":"e1","createdDateTime":42,"status":{"errorCode":0}}"#, "sign-in event e1 skipped: 'createdDateTime' is not an ISO-8601 time"),
        (#"{"id":"e1","createdDateTime":"2020-03-13T19:15:41Z"}"#, "sign-in event e1 skipped: 'status' is missing or not an object"),
        (#"{"id":"e1","createdDateTime":"2020-03-13T19:15:41Z","status":{"errorCode":"x"}}"#, "sign-in event e1 skipped: 'status.errorCode' is missing or not a whole number"),
        ("[]", "sign-in event without an id skipped: the event is not a JSON object"),
    ])
    func malformedEventsSayWhy(text: String, message: String) {
        #expect(throws: MalformedSignIn.self) { try event(text) }
        do { _ = try event(text) } catch { #expect("\(error)" == message) }
    }

    /// Log Analytics writes the error code as text: the same number, here as in replay.
    @Test func anErrorCodeWrittenAsTextIsTheNumber() throws {
        let text = try event(#"{"id":"e1","createdDateTime":"2020-03-13T19:15:41Z","status":{"errorCode":" 50126"}}"#)
        #expect(text.status.errorCode == 50126 && !text.wasSuccessful)
        #expect(throws: MalformedSignIn(id: "e1", problem: "'status.errorCode' is missing or not a whole number")) {
            try event(#"{"id":"e1","createdDateTime":"2020-03-13T19:15:41Z","status":{"errorCode":"50126.5"}}"#)
        }
    }

    @Test func encodesBackToTheOriginalJSON() throws {
        let text = #"{"createdDateTime":"2020-03-13T19:15:41.6195833Z","id":"a","status":{"errorCode":0},"zzz":[1,2]}"#
        let e = try event(text)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(String(decoding: try encoder.encode(e), as: UTF8.self) == text)
    }
}
