import Foundation
import Testing
import TophhieAuth
import TophhieJSON
import TophhieSimulator
@testable import TophhieReplay
@testable import TophhieAgent

/// Replay and the live poll decode a sign-in with the same decoder: the same odd records, read
/// from an export by replay and served by the simulated tenant to a poll, are skipped alike, and
/// an error code written as text is read alike.
@Suite(.timeLimit(.minutes(20))) struct ExportAgreementTests {
    @Test func replayAndThePollSkipTheSameRecordsAndReadTheSameOddTypes() async throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Contracts/exports/log-analytics-signinlogs.json").path
        let conversion = try #require(try ExportConversion.convert(file: file, format: nil, strict: false, scratch: NSTemporaryDirectory()))
        conversion.remove()
        guard case .array(let rows) = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: file))) else { Issue.record("not rows"); return }
        try await AgentHarness.with { (harness: inout AgentHarness) in
            harness.api = .beta
            // The same records as Graph's, dated into the tenant's window and given its user; one
            // with its error code as text.
            var served: [JSONValue] = []
            for (index, row) in rows.enumerated() {
                guard case .object(var record) = ExportRecord.fromLogAnalytics(row) else { continue }
                record["userId"] = .string(AgentHarness.userID)
                record["createdDateTime"] = .string(GraphTimestamp.graphText(harness.clock.now().addingTimeInterval(Double(index * 60 - 3600))))
                if index == 0, case .object(var status)? = record["status"] { status["errorCode"] = .string("50126"); record["status"] = .object(status) }
                served.append(.object(record))
            }
            await harness.tenant.addSignIns(served, latencySeconds: 0)
            let report = try await harness.cycle().run(now: harness.clock.now())
            #expect(report.outcome == .succeeded)
            #expect(report.skipped == conversion.skippedSignIns, "poll \(report.skipped), replay \(conversion.skippedSignIns)")
            #expect(report.skipped.map(\.description) == ["sign-in event la000008-0000-4000-8000-000000000000 skipped: 'status.errorCode' is missing or not a whole number"])
            #expect(report.fetched == 7, "the text error code is read, not skipped")
            #expect(report.coordinatesOutOfRange == conversion.coordinatesDropped && report.coordinatesOutOfRange == 1, "latitude 125.16, counted alike")
            #expect(report.summary.contains("1 with coordinates out of range (place unknown)"), "\(report.summary)")
        }
    }
}
