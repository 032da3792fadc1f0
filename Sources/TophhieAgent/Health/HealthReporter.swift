import Foundation
import TophhieSystem
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Tells the world outside the agent that it is alive: a heartbeat URL pinged after each poll
/// (healthchecks.io / Uptime Kuma "push" style, so a dead host, a crash loop or a disabled timer
/// is noticed by the silence) and a metrics file written atomically each cycle.
public struct HealthReporter: Sendable {
    /// Where to report; each part is optional.
    public struct Settings: Sendable, Equatable {
        /// GET after a successful poll.
        public var heartbeatURL: URL?
        /// GET after a failed one; default `<heartbeatURL>/fail` (healthchecks.io's form).
        public var heartbeatFailURL: URL?
        /// A `.prom` file for node_exporter's textfile collector.
        public var metricsFile: URL?

        public init(heartbeatURL: URL? = nil, heartbeatFailURL: URL? = nil, metricsFile: URL? = nil) {
            self.heartbeatURL = heartbeatURL
            self.heartbeatFailURL = heartbeatFailURL
            self.metricsFile = metricsFile
        }

        public var isEmpty: Bool { heartbeatURL == nil && metricsFile == nil }

        /// The URL pinged after a failed poll.
        public var failURL: URL? { heartbeatFailURL ?? heartbeatURL?.appendingPathComponent("fail") }
    }

    public let settings: Settings
    let transport: any HTTPTransport
    /// How long a notifier may deliver nothing before a poll is reported failed.
    public var channelFailingAfter: TimeInterval = PollCycle.defaultChannelFailingAfter
    /// Seconds one ping may take; a slow monitor never holds up the next poll for long.
    public var deadline: Double = 10

    public init(settings: Settings, transport: any HTTPTransport) {
        self.settings = settings
        self.transport = transport
    }

    /// One account's poll, as `record(_:at:)` reports it across accounts.
    public struct AccountPoll: Sendable {
        /// The account's name with `accounts:`, labelling its metrics; nil for the one account.
        public var account: String?
        public var stateDirectory: URL
        public var notifiers: [String]
        /// The poll's report, or nil when the poll threw (damaged state, disk).
        public var report: PollReport?

        public init(account: String?, stateDirectory: URL, notifiers: [String], report: PollReport?) {
            self.account = account
            self.stateDirectory = stateDirectory
            self.notifiers = notifiers
            self.report = report
        }
    }

    /// Reports one cycle over every account (one, without `accounts:`): one heartbeat, a success
    /// only when every account's poll succeeded, and one metrics file with each account's samples.
    /// - Returns: one line per part that could not report, for the log; never the URL's path
    ///   or query, which hold the check's secret.
    public func record(_ polls: [AccountPoll], at now: Date) async -> [String] {
        guard !settings.isEmpty else { return [] }
        var problems: [String] = []
        // A notifier failing for an hour is a failure to be watched: its alerts are not arriving.
        func succeeded(_ report: PollReport?) -> Bool {
            let channelFailing = report?.delivery.contains { $0.hasFailed(for: channelFailingAfter, at: now) } ?? false
            return report?.outcome == .succeeded && !channelFailing
        }
        let allSucceeded = polls.allSatisfy { succeeded($0.report) }
        if let url = allSucceeded ? settings.heartbeatURL : settings.failURL {
            var request = URLRequest(url: url)
            request.httpMethod = "GET"
            request.setValue("tophhie-watch", forHTTPHeaderField: "User-Agent")
            do {
                let reply = try await transport.send(request, deadline: deadline)
                if !(200...299).contains(reply.status) { problems.append("heartbeat \(HTTPTransportError.origin(url)): HTTP \(reply.status)") }
            } catch is CancellationError {
                return problems
            } catch {
                problems.append("heartbeat \(HTTPTransportError.origin(url)): \(error)")
            }
        }
        if let file = settings.metricsFile {
            var entries: [MetricsText.Entry] = []
            for poll in polls {
                let health = await AgentHealth.read(stateDirectory: poll.stateDirectory, notifiers: poll.notifiers)
                entries.append(MetricsText.Entry(account: poll.account, health: health, lastPoll: now, succeeded: succeeded(poll.report), alerts: poll.report?.alerts.count ?? 0, signIns: poll.report?.fetched ?? 0))
            }
            let text = MetricsText.render(entries)
            do {
                // Metrics are not secret and the collector runs as another user: 0644.
                try await BlockingWork.shared.run { try DurableFile.replace(file.path, with: Array(text.utf8), mode: 0o644) }
            } catch {
                problems.append("metrics file: \(error)")
            }
        }
        return problems
    }
}
