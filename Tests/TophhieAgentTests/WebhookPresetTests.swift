import Foundation
import Testing
import TophhieJSON
import TophhieRules
@testable import TophhieAgent

@Suite(.timeLimit(.minutes(20))) struct WebhookPresetTests {
    static let context = WebhookPreset.Context(source: "host-a", receiver: "pager")

    func body(_ preset: WebhookPreset, _ alert: Alert = NotifierTestAlerts.alert()) -> JSONValue {
        // Through bytes, as sent, to catch anything that does not survive encoding.
        try! JSONValue.parse(preset.body(for: alert, context: Self.context).canonicalData())
    }

    /// A huge alert (a megabyte device name, 5,000 events) is cut to the generic preset's limit,
    /// longest first: still the envelope, still valid JSON, its id and rule whole, marked cut.
    @Test func aHugeAlertIsCutToTheGenericLimitLongestFirst() throws {
        let base = NotifierTestAlerts.alert(device: String(repeating: "D", count: 1 << 20))
        let events = (0..<5_000).map { i in
            AlertEvent(id: "ev-\(i)", time: NotifierTestAlerts.baseTime.addingTimeInterval(Double(i)), errorCode: 50126,
                       app: "Azure Portal", ipAddress: "203.0.113.9", location: "Paris, FR", device: i == 0 ? String(repeating: "D", count: 1 << 20) : nil)
        }
        let huge = Alert(id: base.id, kind: base.kind, rule: base.rule, level: base.level, summary: base.summary, group: base.group,
                         events: events, firstEventTime: events[0].time, lastEventTime: events[4_999].time, detectedAt: base.detectedAt, late: false)
        let value = body(.generic, huge)
        let bytes = value.canonicalBytes()
        #expect(bytes.count <= JSONBodyBound.genericLimit, "\(bytes.count) bytes")
        #expect(try JSONValue.parse(Data(bytes)) == value)
        #expect(value["truncated"] == .bool(true))
        #expect(value["type"] == .string("alert.fired"))
        #expect(value.value(atPath: "data.id") == .string(base.id))
        #expect(value.value(atPath: "data.rule.id") == .string("failed-burst"))
        // A body under the limit is as it was, unmarked.
        #expect(body(.generic)["truncated"] == nil)
    }

    @Test func genericEnvelope() {
        let value = body(.generic)
        #expect(value["type"] == .string("alert.fired"))
        #expect(value["timestamp"] == .string("2025-12-02T13:05:00.000Z"))
        #expect(value["data"] == AlertJSON.value(NotifierTestAlerts.alert()))
        #expect(body(.generic, NotifierTestAlerts.alert(kind: .notice))["type"] == .string("agent.notice"))
    }

    @Test func slackTextAndBlocksEscapeMarkup() {
        let value = body(.slack, NotifierTestAlerts.alert(summary: "device <!channel> & <http://evil|click>\nline"))
        let text = value["text"]?.stringValue ?? ""
        #expect(text == #"[HIGH] Failed sign-in burst: device &lt;!channel&gt; &amp; &lt;http://evil|click&gt;\nline"#)
        #expect(value.value(atPath: "blocks.0.type") == .string("section"))
        #expect(value.value(atPath: "blocks.0.text.type") == .string("mrkdwn"))
        let details = value.value(atPath: "blocks.1.text.text")?.stringValue ?? ""
        #expect(details.contains("*Alert id:* a-1"))
        #expect(details.contains("*Group:* ipAddress=203.0.113.9"))
    }

    @Test func teamsAdaptiveCard() {
        let value = body(.teamsWorkflows)
        #expect(value["type"] == .string("message"))
        #expect(value.value(atPath: "attachments.0.contentType") == .string("application/vnd.microsoft.card.adaptive"))
        #expect(value.value(atPath: "attachments.0.contentUrl") == .null)
        #expect(value.value(atPath: "attachments.0.content.type") == .string("AdaptiveCard"))
        #expect(value.value(atPath: "attachments.0.content.body.0.color") == .string("Attention"))
        #expect(value.value(atPath: "attachments.0.content.body.0.text") == .string("[HIGH] Failed sign-in burst"))
        #expect(value.value(atPath: "attachments.0.content.body.2.type") == .string("FactSet"))
        #expect(value.value(atPath: "attachments.0.content.body.2.facts.0.title") == .string("Rule"))
        #expect(body(.teamsWorkflows, NotifierTestAlerts.alert(level: .medium)).value(atPath: "attachments.0.content.body.0.color") == .string("Warning"))
    }

    @Test func discordEmbedWithMentionsOff() {
        let long = String(repeating: "x", count: 5000)
        let value = body(.discord, NotifierTestAlerts.alert(summary: "@everyone " + long))
        #expect(value.value(atPath: "allowed_mentions.parse") == .array([]))
        #expect(value.value(atPath: "embeds.0.title") == .string("[HIGH] Failed sign-in burst"))
        let description = value.value(atPath: "embeds.0.description")?.stringValue ?? ""
        #expect(description.count == 4096 && description.hasSuffix("…"))
        #expect(value.value(atPath: "embeds.0.color") == .int(0xE74C3C))
        #expect(value.value(atPath: "embeds.0.timestamp") == .string("2025-12-02T13:05:00.000Z"))
    }

    /// One letter and 8,000 combining marks is one character but 8,000 UTF-16 units and 16,001
    /// bytes; the services count units or bytes, so must the limits.
    static func hostileAlert() -> Alert {
        let marks = "a" + String(repeating: "\u{0301}", count: 8000)
        var alert = NotifierTestAlerts.alert(summary: "first deviceDetail.browser '\(marks)' " + marks)
        alert.group = [AlertGroupValue(field: "deviceDetail.browser", value: marks), AlertGroupValue(field: "userId", value: marks)]
        return alert
    }

    @Test func limitsAreCountedInTheUnitsEachServiceCounts() throws {
        let alert = Self.hostileAlert()
        let discord = try #require(body(.discord, alert).value(atPath: "embeds.0"))
        let description = discord["description"]?.stringValue ?? ""
        #expect(description.utf16.count <= 4096 && description.hasSuffix("…"))
        var total = (discord["title"]?.stringValue ?? "").utf16.count + (discord.value(atPath: "footer.text")?.stringValue ?? "").utf16.count + description.utf16.count
        guard case .array(let fields)? = discord["fields"] else { Issue.record("no fields"); return }
        for case .object(let field) in fields {
            let value = field["value"]?.stringValue ?? ""
            #expect(value.utf16.count <= 1024)
            total += value.utf16.count + (field["name"]?.stringValue ?? "").utf16.count
        }
        #expect(total <= 6000, "Discord's embed total: \(total)")

        let slack = body(.slack, alert)
        for path in ["text", "blocks.0.text.text", "blocks.1.text.text"] {
            #expect((slack.value(atPath: path)?.stringValue ?? "").utf16.count <= 3000, "\(path)")
        }
        let key = try PagerDutyRoutingKey("R0123456789abcdef0123456789abcde")
        #expect((body(.pagerDuty(routingKey: key), alert).value(atPath: "payload.summary")?.stringValue ?? "").utf8.count <= 1024)

        let teams = body(.teamsWorkflows, alert)
        #expect(teams.canonicalData().count <= 28_000, "Teams body: \(teams.canonicalData().count) bytes")
        #expect(teams.value(atPath: "attachments.0.content.version") == .string("1.5"))
    }

    @Test func genericPagerDutyAndAlertmanagerBodiesCarryNoRawControlOrBidiCharacters() throws {
        let hostile = "Edge\u{202e}gnp.exe\u{2028}line\u{85}\u{1b}[2J"
        let alert = NotifierTestAlerts.alert(device: hostile, summary: "first device '\(hostile)'")
        let key = try PagerDutyRoutingKey("R0123456789abcdef0123456789abcde")
        for preset in [WebhookPreset.generic, .pagerDuty(routingKey: key), .alertmanager] {
            let text = String(decoding: body(preset, alert).canonicalData(), as: UTF8.self)
            let decoded = try JSONValue.parse(Data(text.utf8))
            var raw: [String] = []
            func walk(_ value: JSONValue) {
                switch value {
                case .string(let s) where s.unicodeScalars.contains(where: ControlCharacterEscaping.needsEscape): raw.append(s)
                case .array(let items): items.forEach(walk)
                case .object(let members): members.values.forEach(walk)
                default: break
                }
            }
            walk(decoded)
            #expect(raw == [], "\(preset): \(raw)")
            #expect(text.contains(#"Edge\\u{202e}gnp.exe"#), "\(preset) shows the override as a visible escape")
        }
        // Ordinary values are untouched: a Windows account name keeps its one backslash.
        let plain = NotifierTestAlerts.alert(summary: #"sign-in as CONTOSO\jane"#)
        #expect(body(.generic, plain).value(atPath: "data.summary") == .string(#"sign-in as CONTOSO\jane"#))
    }

    @Test func aRecoveryResolvesThePagerDutyIncidentItsProblemOpened() throws {
        let key = try PagerDutyRoutingKey("R0123456789abcdef0123456789abcde")
        var recovery = NotifierTestAlerts.alert(id: "notice-b", kind: .notice)
        recovery.resolves = "notice-a"
        #expect(body(.pagerDuty(routingKey: key), recovery) == .object([
            "routing_key": .string("R0123456789abcdef0123456789abcde"), "event_action": .string("resolve"), "dedup_key": .string("notice-a"),
        ]))
        #expect(AlertJSON.value(recovery)["resolves"] == .string("notice-a"))
    }

    @Test func pagerDutyTrigger() throws {
        let key = try PagerDutyRoutingKey("R0123456789abcdef0123456789abcde")
        let value = body(.pagerDuty(routingKey: key), NotifierTestAlerts.alert(level: .critical))
        #expect(value["routing_key"] == .string("R0123456789abcdef0123456789abcde"))
        #expect(value["event_action"] == .string("trigger"))
        #expect(value["dedup_key"] == .string("a-1"))
        #expect(value.value(atPath: "payload.severity") == .string("critical"))
        #expect(value.value(atPath: "payload.source") == .string("host-a"))
        #expect(value.value(atPath: "payload.summary") == .string("[CRITICAL] Failed sign-in burst: 5 failed sign-ins from 203.0.113.9 in 10m"))
        #expect(value.value(atPath: "payload.timestamp") == .string("2025-12-02T13:05:00.000Z"))
        #expect(value.value(atPath: "payload.custom_details.id") == .string("a-1"))
    }

    @Test(arguments: [(AlertLevel.critical, "critical"), (.high, "error"), (.medium, "warning"), (.low, "info"), (.informational, "info")])
    func pagerDutySeverities(level: AlertLevel, severity: String) {
        #expect(WebhookPreset.pagerDutySeverity(level) == severity)
    }

    @Test func alertmanagerVersion4() {
        var alert = NotifierTestAlerts.alert()
        alert.group.append(AlertGroupValue(field: "location.countryOrRegion", value: "FR"))
        let value = body(.alertmanager, alert)
        #expect(value["version"] == .string("4"))
        #expect(value["status"] == .string("firing"))
        #expect(value["receiver"] == .string("pager"))
        // Grouped by the alert's own labels, not by rule: two sign-in alerts from different
        // addresses are two groups for a receiver that deduplicates on groupKey.
        #expect(value["groupKey"] == .string(#"{}:{alertname="failed-burst", ipAddress="203.0.113.9", location_countryOrRegion="FR"}"#))
        #expect(value["groupLabels"] == .object(["alertname": .string("failed-burst"), "ipAddress": .string("203.0.113.9"), "location_countryOrRegion": .string("FR")]))
        #expect(value.value(atPath: "alerts.0.labels.alertname") == .string("failed-burst"))
        #expect(value.value(atPath: "alerts.0.labels.alert_id") == .string("a-1"))
        #expect(value.value(atPath: "alerts.0.labels.severity") == .string("high"))
        #expect(value.value(atPath: "alerts.0.labels.ipAddress") == .string("203.0.113.9"))
        #expect(value.value(atPath: "alerts.0.labels.location_countryOrRegion") == .string("FR"))
        #expect(value.value(atPath: "alerts.0.annotations.summary") == .string("5 failed sign-ins from 203.0.113.9 in 10m"))
        #expect(value.value(atPath: "alerts.0.startsAt") == .string("2025-12-02T10:00:00.250Z"))
        #expect(value.value(atPath: "alerts.0.fingerprint") == .string(AlertmanagerLabels(alert).fingerprint))
        #expect(value.value(atPath: "alerts.0.endsAt") == .string("0001-01-01T00:00:00Z"))
    }

    @Test func alertmanagerFingerprintIsPrometheusLabelSetFingerprint() {
        // prometheus/common model/signature_test.go: the empty set is FNV-1a 64's offset basis,
        // and this pair is its second vector (5799056148416392346).
        #expect(AlertmanagerLabels(labels: [:], groupLabelNames: []).fingerprint == "cbf29ce484222325")
        #expect(AlertmanagerLabels(labels: ["name": "garland, briggs", "fear": "love is not enough"], groupLabelNames: []).fingerprint == String(5_799_056_148_416_392_346 as UInt64, radix: 16))
    }

    /// The fingerprint is over the labels the body carries, hardened: a device named with
    /// chat markup and a bidi override gives labels whose fingerprint the receiver recomputes.
    @Test func alertmanagerFingerprintIsOverTheLabelsSent() {
        var alert = NotifierTestAlerts.alert(id: "a-1")
        alert.group = [AlertGroupValue(field: "deviceDetail.displayName", value: "<!channel> Edge\u{202e}gnp.exe")]
        let value = body(.alertmanager, alert)
        guard case .object(let sent)? = value.value(atPath: "alerts.0.labels") else { Issue.record("no labels"); return }
        let recomputed = AlertmanagerLabels(labels: sent.mapValues { $0.stringValue ?? "" }, groupLabelNames: []).fingerprint
        #expect(value.value(atPath: "alerts.0.fingerprint") == .string(recomputed))
        #expect(sent["deviceDetail_displayName"] == .string("\u{2039}!channel> Edge\\u{202e}gnp.exe"), "\(sent)")
    }

    /// PagerDuty's limits hold after hardening lengthens the text: a summary of markup that
    /// grows from one byte to three, and an alert whose details are megabytes.
    @Test func pagerDutyStaysWithinItsLimitsAfterHardening() throws {
        let key = try PagerDutyRoutingKey("R0123456789abcdef0123456789abcde")
        var alert = NotifierTestAlerts.alert(id: "big", summary: String(repeating: "<!here> ", count: 400))
        alert.group = (0..<40).map { AlertGroupValue(field: "field.\($0)", value: String(repeating: "<@U1>", count: 6000)) }
        let value = body(.pagerDuty(routingKey: key), alert)
        let summary = try #require(value.value(atPath: "payload.summary")?.stringValue)
        #expect(summary.utf8.count <= 1024, "\(summary.utf8.count) bytes")
        #expect(!summary.contains("<!here>"), "still neutralised")
        #expect(value.canonicalBytes().count <= 512 * 1024, "\(value.canonicalBytes().count) bytes")
        #expect(value.value(atPath: "payload.custom_details.truncated") == .bool(true))
        #expect(value.value(atPath: "routing_key") == .string("R0123456789abcdef0123456789abcde"))
    }

    /// An alert that means a possible takeover carries the steps in every preset: a line in
    /// each chat message, an annotation for Alertmanager, `response` in the JSON bodies; other
    /// alerts do not.
    @Test func takeoverAlertsCarryTheStepsInEveryPreset() throws {
        var alert = NotifierTestAlerts.alert(id: "t-1")
        alert.rule.id = "token-from-new-place"
        let line = "Respond: 1) revoke every session of your account: tophhie-watch respond --revoke-sessions 2) change your password 3) say 'this wasn't me' for the sign-in and review your security info: https://mysignins.microsoft.com"
        let key = try PagerDutyRoutingKey("R0123456789abcdef0123456789abcde")
        for preset in [WebhookPreset.slack, .teamsWorkflows, .discord] {
            let text = String(decoding: body(preset, alert).canonicalData(), as: UTF8.self)
            #expect(text.contains("in 10m\\nRespond: 1") && text.contains("revoke every session of your account: tophhie-watch respond --revoke-sessions"), "\(preset): \(text)")
        }
        #expect(body(.alertmanager, alert).value(atPath: "alerts.0.annotations.response") == .string(line))
        #expect(body(.generic, alert).value(atPath: "data.response.steps.0") == .string(AlertResponse.steps[0]))
        #expect(body(.pagerDuty(routingKey: key), alert).value(atPath: "payload.custom_details.response.steps.1") == .string("change your password"))
        #expect(AlertTextLine.body(alert).hasSuffix("— respond: 1) revoke every session of your account: tophhie-watch respond --revoke-sessions; 2) change your password; 3) say 'this wasn't me' for the sign-in and review your security info: https://mysignins.microsoft.com"))
        let plain = NotifierTestAlerts.alert(id: "p-1")
        #expect(body(.generic, plain).value(atPath: "data.response") == nil)
        #expect(!AlertTextLine.body(plain).contains("respond:"))
    }

    @Test func twoAlertsOfOneRuleAndGroupStayTwoAlerts() {
        let first = body(.alertmanager, NotifierTestAlerts.alert(id: "a-1"))
        let second = body(.alertmanager, NotifierTestAlerts.alert(id: "a-2"))
        #expect(first.value(atPath: "alerts.0.fingerprint") != second.value(atPath: "alerts.0.fingerprint"))
    }

    @Test func aRecoveryIsTheResolvedOfTheProblemNoticeItEnds() throws {
        let since = Date(timeIntervalSince1970: 1_800_000_000)
        var problem = AgentProblem(kind: .signInNeeded, detail: "refresh token revoked", since: since, notified: true)
        let opened = SystemNotice.alert(.signInNeeded, problem: problem, anchor: since, now: since.addingTimeInterval(60))
        problem.noticeID = opened.id
        let recovery = SystemNotice.alert(.recovered, problem: problem, anchor: since, now: since.addingTimeInterval(3600), resolves: opened.id)
        let firing = body(.alertmanager, opened)
        let resolved = body(.alertmanager, recovery)
        #expect(firing["status"] == .string("firing"))
        #expect(resolved["status"] == .string("resolved"))
        #expect(resolved.value(atPath: "alerts.0.status") == .string("resolved"))
        for path in ["groupKey", "alerts.0.labels", "alerts.0.fingerprint", "alerts.0.startsAt"] {
            #expect(resolved.value(atPath: path) == firing.value(atPath: path), "\(path)")
        }
        #expect(firing.value(atPath: "alerts.0.labels.alertname") == .string("tophhie.notice.sign-in-needed"))
        #expect(resolved.value(atPath: "alerts.0.endsAt") == .string("2027-01-15T09:00:00.000Z"))
        #expect(resolved.value(atPath: "alerts.0.annotations.title") == .string("Monitoring resumed"))
    }

    @Test func genericPagerDutyAndAlertmanagerBodiesCannotPingAChannelTheyAreForwardedTo() throws {
        let hostile = "<!channel> @everyone <@U024BE7LH> <#C123> <at>Jane</at> <https://evil.example|Open Outlook> @Here"
        let alert = NotifierTestAlerts.alert(device: hostile, summary: "first device '\(hostile)'")
        let key = try PagerDutyRoutingKey("R0123456789abcdef0123456789abcde")
        for preset in [WebhookPreset.generic, .pagerDuty(routingKey: key), .alertmanager] {
            let text = String(decoding: body(preset, alert).canonicalData(), as: UTF8.self)
            for markup in ["<!", "@everyone", "<@", "<#", "<at>", "<https:", "@Here"] {
                #expect(!text.contains(markup), "\(preset) passes \(markup)")
            }
            #expect(text.contains("\u{2039}!channel> \u{FF20}everyone"), "\(preset) keeps the text readable")
        }
        // Ordinary text keeps its < and @.
        #expect(ChatMentionNeutralising.neutralise("jane@contoso.com <3 a<b") == "jane@contoso.com <3 a<b")
        #expect(ChatMentionNeutralising.neutralise("mail@here.example") == "mail@here.example")
    }

    @Test(arguments: [("ipAddress", "ipAddress"), ("location.city", "location_city"), ("1st", "_1st"), ("", "_")])
    func labelNames(field: String, label: String) {
        #expect(WebhookPreset.labelName(field) == label)
    }
}
