import Foundation
import Testing
import TophhieJSON

@Suite(.timeLimit(.minutes(2))) struct GraphTimestampTests {
    @Test(arguments: [
        ("2020-03-13T19:15:41.6195833Z", 1_584_126_941.6195833),
        ("2020-03-13T19:15:41Z", 1_584_126_941.0),
        ("2020-03-13T19:15:41.5+01:00", 1_584_123_341.5),
        ("1970-01-01T00:00:00Z", 0.0),
        ("2024-02-29T23:59:59.9999999Z", 1_709_251_199.9999999),
    ])
    func parsesGraphForms(text: String, epoch: Double) throws {
        let date = try #require(GraphTimestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - epoch) < 1e-6)
    }

    @Test(arguments: ["", "2020-03-13", "2020-03-13T19:15:41", "2020-13-13T19:15:41Z", "2020-03-13T19:15:41.Z", "'2020-03-13T19:15:41Z'", "2020-03-13T19:15:41Zjunk", "42", "2023-02-29T00:00:00Z", "2024-04-31T00:00:00Z", "2100-02-29T00:00:00Z"])
    func rejectsOtherText(text: String) {
        #expect(GraphTimestamp.parse(text) == nil)
    }

    @Test func formatsForFilterAndGraph() {
        // A quarter second is exact in binary; seven digits of an arbitrary fraction are not.
        let date = Date(timeIntervalSince1970: 1_584_126_941.25)
        #expect(GraphTimestamp.filterText(date) == "2020-03-13T19:15:41Z")
        #expect(GraphTimestamp.graphText(date) == "2020-03-13T19:15:41.2500000Z")
        #expect(GraphTimestamp.alertText(date) == "2020-03-13T19:15:41.250Z")
        #expect(GraphTimestamp.parse(GraphTimestamp.graphText(date))!.timeIntervalSince1970 - date.timeIntervalSince1970 < 1e-6)
    }
}
