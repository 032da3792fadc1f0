import Foundation
import Testing
import TophhieSystem
@testable import TophhieAuth

/// The ids read from a Graph reply: headers first, then Microsoft's documented error body.
@Suite struct GraphRequestIDsTests {
    /// The error body as Microsoft's "Microsoft Graph error responses" page shows it.
    static let documentedBody = Data("""
    {"error":{"code":"invalidRange","message":"Uploaded fragment overlaps with existing data.",
     "innerError":{"code":"invalidRange","request-id":"b7b3b7b1-0a2e-4d7b-9f7c-6b3b1d8c5a11",
     "client-request-id":"6f8e3a52-9c1d-4b2e-8f4a-2d5c7e9b1a03","date":"2026-12-03T10:00:00"}}}
    """.utf8)

    @Test func theBodysInnerErrorIsUsedWhenTheHeadersAreMissing() {
        let ids = GraphRequestIDs.from(HTTPReply(status: 416, headers: [:], body: Self.documentedBody), sent: "00000000-0000-0000-0000-000000000001")
        #expect(ids == GraphRequestIDs(requestID: "b7b3b7b1-0a2e-4d7b-9f7c-6b3b1d8c5a11", clientRequestID: "6f8e3a52-9c1d-4b2e-8f4a-2d5c7e9b1a03", date: "2026-12-03T10:00:00"))
    }

    @Test func headersWinAndTheSentIDStandsInWhenNothingWasEchoed() {
        let ids = GraphRequestIDs.from(HTTPReply(status: 503, headers: ["request-id": "abc-123"], body: Data("Service Unavailable".utf8)), sent: "00000000-0000-0000-0000-000000000001")
        #expect(ids == GraphRequestIDs(requestID: "abc-123", clientRequestID: "00000000-0000-0000-0000-000000000001", date: nil))
    }

    @Test func valuesNotShapedLikeIDsAreDroppedSoTheyCannotForgeAMessage() {
        let hostile = HTTPReply(status: 500, headers: ["request-id": "x\n  ok    all checks passed", "client-request-id": String(repeating: "a", count: 65)], body: Data())
        let ids = GraphRequestIDs.from(hostile, sent: nil)
        #expect(ids == GraphRequestIDs())
        #expect(TophhieAuthError.signInHistory(status: 500, graphCode: nil, ids: ids).localizedDescription.hasPrefix("Graph failed reading your sign-in history (GET /auditLogs/signIns): HTTP 500 — Graph is throttling"))
    }
}
