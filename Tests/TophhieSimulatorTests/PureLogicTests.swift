import Foundation
import TophhieJSON
import TophhieSimulator
import Testing

@Suite("Filter grammar, timestamps and the sign-in factory", .timeLimit(.minutes(20)))
struct PureLogicTests {
    @Test(arguments: [
        ("userId eq 'abc'", ["abc"], nil, nil),
        ("(userId eq 'abc') and (createdDateTime ge 2026-03-01T00:00:00Z)", ["abc"], "2026-03-01T00:00:00Z", nil),
        ("userId eq 'abc' AND createdDateTime ge 2026-03-01T00:00:00.1234567Z and createdDateTime le 2026-03-02T00:00:00Z", ["abc"], "2026-03-01T00:00:00.1234567Z", "2026-03-02T00:00:00Z"),
        ("createdDateTime le 2018-01-24", [], nil, "2018-01-24T00:00:00Z"),
        ("userId eq 'o''brien'", ["o'brien"], nil, nil),
    ])
    func filtersParse(text: String, users: [String], notBefore: String?, notAfter: String?) throws {
        let filter = try SignInFilter.parse(text)
        #expect(filter.userIDs == users)
        #expect(filter.notBefore == notBefore.flatMap(GraphTimestamp.parse))
        #expect(filter.notAfter == notAfter.flatMap(GraphTimestamp.parse))
    }

    @Test(arguments: [
        "createdDateTime ge '2021-09-07T00:00:00Z'",
        "userId eq 'a' or userId eq 'b'",
        "userId ne 'a'",
        "createdDateTime gt 2026-03-01T00:00:00Z",
        "createdDateTime ge 2026-13-01T00:00:00Z",
        "appId eq 'x'",
        "userId eq 'unterminated",
        "userId eq 'a' and",
        "(userId eq 'a'",
        "userId eq 'a')",
    ])
    func filtersRefused(text: String) {
        #expect(throws: SignInFilter.ParseError.self) { try SignInFilter.parse(text) }
    }

    @Test func selfFilterMeansEveryUserClauseIsTheUser() throws {
        #expect(try SignInFilter.parse("userId eq 'ABC'").isSelfFilter(for: "abc"))
        #expect(try !SignInFilter.parse("createdDateTime ge 2026-03-01T00:00:00Z").isSelfFilter(for: "abc"))
        #expect(try !SignInFilter.parse("userId eq 'abc' and userId eq 'def'").isSelfFilter(for: "abc"))
    }

    @Test(arguments: [
        ("2020-03-13T19:15:41.6195833Z", 1_584_126_941.6195833),
        ("2024-02-29T00:00:00Z", 1_709_164_800),
        ("2026-03-10T13:00:00+01:00", 1_773_144_000),
        ("1969-12-31T23:59:59Z", -1),
    ])
    func timestampsParse(text: String, seconds: Double) throws {
        let date = try #require(GraphTimestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 1e-6)
    }

    @Test(arguments: ["2026-03-10 12:00:00Z", "2026-03-10T12:00:00", "2026-03-10T24:00:00Z", "x", "2026-03-10T12:00:00.Z"])
    func badTimestampsAreNil(text: String) {
        #expect(GraphTimestamp.parse(text) == nil)
    }

    @Test func formatKeepsSevenDigitsAndRoundTrips() throws {
        let text = "2020-03-13T19:15:41.6195833Z"
        let date = try #require(GraphTimestamp.parse(text))
        let formatted = GraphTimestamp.graphText(date)
        #expect(formatted.count == text.count)
        #expect(formatted.hasPrefix("2020-03-13T19:15:41.619583"))
        #expect(abs(try #require(GraphTimestamp.parse(formatted)).timeIntervalSince(date)) < 2e-7)
        #expect(GraphTimestamp.graphText(try #require(GraphTimestamp.parse("2026-03-10T12:00:00.5Z"))) == "2026-03-10T12:00:00.5000000Z")
        #expect(GraphTimestamp.filterText(date) == "2020-03-13T19:15:41Z")
    }

    @Test func factoryIsDeterministicAndRealistic() throws {
        var a = Fixture.factory
        var b = Fixture.factory
        let first = a.normalHistory(endingAt: Fixture.start, days: 30)
        let second = b.normalHistory(endingAt: Fixture.start, days: 30)
        #expect(first == second)
        #expect(first.count >= 60 && first.count <= 150)
        for event in first {
            let created = try #require(event["createdDateTime"]?.stringValue)
            #expect(created.count == 28)  // yyyy-mm-ddThh:mm:ss.fffffffZ
            let date = try #require(GraphTimestamp.parse(created))
            #expect(date <= Fixture.start && date > Fixture.start.addingTimeInterval(-31 * 86_400))
            #expect(event["userId"]?.stringValue == Fixture.userID)
            #expect(event.value(atPath: "location.countryOrRegion")?.stringValue == "GB")
            #expect(event.value(atPath: "status.errorCode")?.intValue != nil)
            #expect(event.value(atPath: "deviceDetail.operatingSystem")?.stringValue != nil)
            #expect(event.value(atPath: "location.geoCoordinates.latitude")?.doubleValue != nil)
        }
        #expect(Set(first.compactMap { $0["id"]?.stringValue }).count == first.count)
        var c = SignInFactory(seed: 100, account: Fixture.factory.account)
        #expect(c.normalHistory(endingAt: Fixture.start, days: 30) != first)
    }

    @Test func failureBurstEndsWithSuccessFromThePlace() {
        var factory = Fixture.factory
        let burst = factory.failureBurst(at: Fixture.start, count: 5, place: .lagos, endingWithSuccess: true)
        #expect(burst.count == 6)
        #expect(burst.prefix(5).allSatisfy { $0.value(atPath: "status.errorCode") == .int(50126) })
        #expect(burst.prefix(5).allSatisfy { $0.value(atPath: "status.failureReason")?.stringValue == "Error validating credentials due to invalid username or password." })
        #expect(burst.last?.value(atPath: "status.errorCode") == .int(0))
        #expect(burst.allSatisfy { $0.value(atPath: "location.countryOrRegion") == .string("NG") })
    }
}
