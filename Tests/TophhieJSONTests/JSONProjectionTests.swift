import Foundation
import Testing
@testable import TophhieJSON

/// Parsing with a projection gives the full parse with the other members removed, and refuses
/// structurally broken JSON as the full parser does.
@Suite(.timeLimit(.minutes(20))) struct JSONProjectionTests {
    /// `value` with only the members `projection` names, applied the way the parser applies it.
    static func pruned(_ value: JSONValue, _ projection: JSONProjection) -> JSONValue {
        if projection.whole { return value }
        switch value {
        case .object(let members):
            var kept: [String: JSONValue] = [:]
            for (key, member) in members { if let child = projection.children[key] { kept[key] = pruned(member, child) } }
            return .object(kept)
        case .array(let items): return .array(items.map { pruned($0, projection) })
        default: return value
        }
    }

    static let signIn = Data("""
    {"id":"66ea54eb","createdDateTime":"2020-03-13T19:15:41Z","appDisplayName":"Graph Explorer",
     "status":{"errorCode":0,"failureReason":null,"additionalDetails":"MFA requirement satisfied \\"by\\" claim \\u00e9"},
     "location":{"city":"Redmond","geoCoordinates":{"latitude":47.6,"longitude":-122.1,"altitude":null}},
     "deviceDetail":{"browser":"Edge 80","operatingSystem":"Windows 10","isCompliant":false},
     "appliedConditionalAccessPolicies":[{"id":"a","displayName":"x","enforcedGrantControls":["Mfa"],"result":"success"}],
     "authenticationDetails":[{"authenticationMethod":"Password","succeeded":true}],"riskEventTypes_v2":[]}
    """.utf8)

    @Test func keepsOnlyTheNamedPathsAndEqualsTheFullParsePruned() throws {
        let projection = JSONProjection(paths: [["id"], ["status", "errorCode"], ["location", "geoCoordinates", "latitude"], ["appliedConditionalAccessPolicies", "result"], ["deviceDetail"]])
        let full = try JSONValue.parse(Self.signIn)
        let projected = try JSONValue.parse(Self.signIn, keeping: projection)
        #expect(projected == Self.pruned(full, projection))
        #expect(projected == .object([
            "id": .string("66ea54eb"),
            "status": .object(["errorCode": .int(0)]),
            "location": .object(["geoCoordinates": .object(["latitude": .double(47.6)])]),
            "appliedConditionalAccessPolicies": .array([.object(["result": .string("success")])]),
            "deviceDetail": full["deviceDetail"]!,
        ]))
    }

    @Test func anIndexOrAPathEndingAtANodeKeepsTheWholeValue() throws {
        let projection = JSONProjection(paths: [["authenticationDetails", "0", "succeeded"], ["status"]])
        let projected = try JSONValue.parse(Self.signIn, keeping: projection)
        let full = try JSONValue.parse(Self.signIn)
        #expect(projected["authenticationDetails"] == full["authenticationDetails"])
        #expect(projected["status"] == full["status"])
        #expect(projected["id"] == nil)
    }

    @Test func everyAcceptedCorpusFileParsesToItsPrunedFullParse() throws {
        let projection = JSONProjection(paths: [["a"], ["b", "c"], ["0"]])
        for name in JSONTestSuiteTests.files where name.hasPrefix("y_") {
            let data = JSONTestSuiteTests.contents(name)
            let full = try JSONValue.parse(data)
            #expect(try JSONValue.parse(data, keeping: JSONProjection(paths: [["nothing", "here"]])) == Self.pruned(full, JSONProjection(paths: [["nothing", "here"]])), "\(name)")
            #expect(try JSONValue.parse(data, keeping: projection) == Self.pruned(full, projection), "\(name)")
        }
    }

    @Test func structurallyBrokenJSONIsRefusedEvenWhereItIsSkipped() {
        let broken = [#"{"id":"1","skip":{"a":[1,2}}"#, #"{"id":"1","skip":"unterminated}"#, #"{"id":"1","skip":tru}"#,
                      #"{"id":"1","skip":"bad \x escape"}"#, #"{"id":"1","skip":01}"#, #"{"id":"1","skip":[1,]}"#, #"{"id":"1"} trailing"#]
        for text in broken {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONValue.parse(Data(text.utf8), keeping: JSONProjection(paths: [["id"]])) }
        }
        // Every n_ file the full parser refuses is refused with a projection that skips all.
        let accepted = JSONTestSuiteTests.files.filter { $0.hasPrefix("n_") }.filter { name in
            let data = JSONTestSuiteTests.contents(name)
            // Invalid UTF-8 inside a skipped string is the one thing a projection does not check.
            guard String(data: data, encoding: .utf8) != nil else { return false }
            return (try? JSONValue.parse(data, keeping: JSONProjection(paths: [["x"]]))) != nil
        }
        #expect(accepted == [])
    }
}
