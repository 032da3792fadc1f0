import Foundation
import Testing
import TophhieSystem
@testable import TophhieCLI

/// `report` as a person runs it against the simulated tenant: the answer first, a quiet period
/// as a page, times in a chosen zone.
@Suite(.timeLimit(.minutes(2))) struct ReportCommandTests {
    typealias Tenant = AccountCommandTests.Tenant

    func run(_ arguments: [String], _ context: Tenant) async -> (ExitCode, CommandOutputRecorder) {
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(arguments, io: recorder.io(environment: context.environment, transport: context.transport, clock: context.clock))
        return (code, recorder)
    }

    /// Nothing in the last five minutes is an answer too: a page that says so, exit 0, and no
    /// word of the scratch file the sign-ins would have been written to.
    @Test func aQuietPeriodIsAPageThatSaysSo() async throws {
        let context = try await AccountCommandTests.tenant()
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        #expect(await run(["login"], context).0 == .ok)
        let out = context.stateDirectory + "/quiet.html"
        let (code, report) = await run(["report", "--since", "5m", "--tz", "UTC", "--out", out], context)
        #expect(code == .ok, "\(report.err)")
        #expect(!report.err.contains("tophhie-report-") && !report.out.contains("tophhie-report-"), "\(report.err)")
        let html = try String(contentsOfFile: out, encoding: .utf8)
        #expect(html.contains("<p class=\"verdict quiet\" id=\"verdict\">nothing found between 2026-08-29 10:35 UTC and 2026-08-29 10:40 UTC</p>"), "\(html.prefix(2500))")
        #expect(html.contains("Account: Jane Doe (jane@contoso.com)") || html.contains("(jane@contoso.com)"), "\(html.prefix(2500))")
        #expect(report.out.hasPrefix("wrote \(out): nothing found between"))
    }

    /// A day with the tenant's failed sign-in from Lagos: the verdict, whose account, then the
    /// alerts before the map, times in the zone asked for with UTC beside.
    @Test func thePageAnswersFirstInTheZoneAskedFor() async throws {
        let context = try await AccountCommandTests.tenant()
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        #expect(await run(["login"], context).0 == .ok)
        let out = context.stateDirectory + "/day.html"
        let (code, report) = await run(["report", "--since", "1d", "--tz", "Asia/Kolkata", "--out", out], context)
        #expect(code == .ok, "\(report.err)")
        let html = try String(contentsOfFile: out, encoding: .utf8)
        let verdict = try #require(html.range(of: "id=\"verdict\""))
        let account = try #require(html.range(of: "id=\"account\""))
        let map = try #require(html.range(of: "<svg class=\"map\""))
        #expect(verdict.lowerBound < account.lowerBound && account.lowerBound < map.lowerBound)
        #expect(html.contains("jane@contoso.com"))
        #expect(html.contains("Written 2026-08-29 16:10 +05:30 (10:40 UTC)."), "\(html.prefix(2500))")
    }

    @Test func anUnknownZoneIsRefusedInWords() async throws {
        let context = try await AccountCommandTests.tenant()
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        let (code, report) = await run(["report", "--tz", "Mars/Olympus"], context)
        #expect(code == .usage)
        #expect(report.err == "tophhie-watch report: option '--tz' takes a time zone name such as Europe/London or UTC, not 'Mars/Olympus'\nsee 'tophhie-watch report --help'\n")
    }

    /// Progress waits two seconds before it says anything, then counts the sign-ins read.
    @Test func progressSpeaksOnlyAfterTwoSeconds() {
        #expect(ReadingProgress.line("report", elapsed: 1.9, count: 500) == nil)
        #expect(ReadingProgress.line("report", elapsed: 2.5, count: 500) == "report: 500 sign-ins read so far (2 s)")
        #expect(CountingTransport.occurrences(of: Array("\"createdDateTime\"".utf8), in: Data(#"{"value":[{"createdDateTime":"x"},{"createdDateTime":"y"}]}"#.utf8)) == 2)
    }
}
