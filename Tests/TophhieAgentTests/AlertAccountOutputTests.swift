import Foundation
import Testing
import TophhieJSON
import TophhieRules
import TophhieSystem
@testable import TophhieAgent

/// With several people watched, every output names whose alert it is (issue 49): the JSON and
/// the Standard Webhooks body carry `account`, and each text carries the name, with the
/// principal name (from Graph) escaped and defanged as the other fields from the data are.
@Suite(.timeLimit(.minutes(20))) struct AlertAccountOutputTests {
    static let jane = AlertAccount(name: "jane", userPrincipalName: "jane@contoso.com")
    static let context = WebhookPreset.Context(source: "host-a", receiver: "pager")

    static func janes(_ alert: Alert = NotifierTestAlerts.alert()) -> Alert {
        alert.attributed(to: jane, distinguishingID: true)
    }

    func body(_ preset: WebhookPreset, _ alert: Alert = janes()) -> JSONValue {
        try! JSONValue.parse(preset.body(for: alert, context: Self.context).canonicalData())
    }

    @Test func stdoutTextNamesTheAccount() {
        let line = StdoutNotifier().render(Self.janes())
        #expect(line == "2025-12-02T13:05:00.000Z HIGH [failed-burst] Failed sign-in burst: 5 failed sign-ins from 203.0.113.9 in 10m (ipAddress=203.0.113.9) account=jane events=2 first=2025-12-02T10:00:00.250Z last=2025-12-02T10:01:00.250Z id=jane-a-1")
    }

    @Test func stdoutJSONLinesCarryTheAccount() {
        let line = StdoutNotifier(settings: .init(format: .jsonLines)).render(Self.janes())
        #expect(line.hasPrefix(#"{"account":{"name":"jane","userPrincipalName":"jane@contoso.com"},"author":"Tophhie","detectedAt":"#))
        #expect(line.contains(#","id":"jane-a-1","#))
    }

    @Test func syslogStructuredDataAndTextNameTheAccount() {
        let notifier = SyslogNotifier(settings: .init(transport: .udp(host: "127.0.0.1", port: 9), hostname: "testhost"),
                                      now: { SyslogMessageTests.fixedTime }, timeZone: TimeZone(identifier: "UTC")!)
        let text = String(decoding: notifier.wireBytes(for: Self.janes()), as: UTF8.self)
        let pid = ProcessFacts.processID
        #expect(text == "<35>1 2025-12-02T10:00:00.123456Z testhost tophhie-watch \(pid) alert.fired [tophhie@32473 id=\"jane-a-1\" account=\"jane\" userPrincipalName=\"jane@contoso.com\" rule=\"failed-burst\" level=\"high\" kind=\"detection\" group=\"ipAddress=203.0.113.9\"] HIGH [failed-burst] Failed sign-in burst: 5 failed sign-ins from 203.0.113.9 in 10m (ipAddress=203.0.113.9) account=jane events=2 first=2025-12-02T10:00:00.250Z last=2025-12-02T10:01:00.250Z id=jane-a-1")
        let local = SyslogNotifier(settings: .init(transport: .unixDatagram(path: "/nonexistent"), hostname: "testhost"),
                                   now: { SyslogMessageTests.fixedTime }, timeZone: TimeZone(identifier: "UTC")!)
        let rfc3164 = String(decoding: local.wireBytes(for: Self.janes()), as: UTF8.self)
        #expect(rfc3164.hasPrefix("<35>Dec  2 10:00:00 tophhie-watch[\(pid)]: id=\"jane-a-1\" account=\"jane\" userPrincipalName=\"jane@contoso.com\" rule=\"failed-burst\""))
    }

    @Test func theStandardWebhooksBodyCarriesTheAccount() {
        let value = body(.generic)
        #expect(value.value(atPath: "data.account") == .object(["name": .string("jane"), "userPrincipalName": .string("jane@contoso.com")]))
        #expect(value.value(atPath: "data.id") == .string("jane-a-1"))
    }

    @Test func slackNamesTheAccount() {
        let value = body(.slack)
        #expect(value["text"] == .string("[HIGH] [jane] Failed sign-in burst: 5 failed sign-ins from 203.0.113.9 in 10m"))
        #expect(value.value(atPath: "blocks.0.text.text") == .string("*[HIGH] [jane] Failed sign-in burst*\n5 failed sign-ins from 203.0.113.9 in 10m"))
        let details = value.value(atPath: "blocks.1.text.text")?.stringValue ?? ""
        #expect(details.hasPrefix("*Account:* jane (jane@contoso.com)\n*Rule:* failed-burst\n"))
    }

    @Test func teamsNamesTheAccount() {
        let value = body(.teamsWorkflows)
        #expect(value.value(atPath: "attachments.0.content.body.0.text") == .string("[HIGH] [jane] Failed sign-in burst"))
        #expect(value.value(atPath: "attachments.0.content.body.2.facts.0") == .object(["title": .string("Account"), "value": .string(#"jane \(jane@contoso.com\)"#)]))
    }

    @Test func discordNamesTheAccount() {
        let value = body(.discord)
        #expect(value.value(atPath: "embeds.0.title") == .string("[HIGH] [jane] Failed sign-in burst"))
        #expect(value.value(atPath: "embeds.0.fields.0") == .object(["name": .string("Account"), "value": .string(#"jane \(jane@contoso.com\)"#), "inline": .bool(true)]))
    }

    @Test func pagerDutyNamesTheAccountAndDeduplicatesPerAccount() throws {
        let key = try PagerDutyRoutingKey("R0123456789abcdef0123456789abcde")
        let value = body(.pagerDuty(routingKey: key))
        #expect(value.value(atPath: "payload.summary") == .string("[HIGH] [jane] Failed sign-in burst: 5 failed sign-ins from 203.0.113.9 in 10m"))
        #expect(value["dedup_key"] == .string("jane-a-1"))
        #expect(value.value(atPath: "payload.custom_details.account.name") == .string("jane"))
        // A recovery resolves the incident of the same person's problem.
        var recovery = NotifierTestAlerts.alert(id: "notice-b", kind: .notice)
        recovery.resolves = "notice-a"
        #expect(body(.pagerDuty(routingKey: key), Self.janes(recovery))["dedup_key"] == .string("jane-notice-a"))
    }

    @Test func alertmanagerLabelsNameTheAccountAndGroupByIt() {
        let value = body(.alertmanager)
        #expect(value["groupKey"] == .string(#"{}:{account="jane", alertname="failed-burst", ipAddress="203.0.113.9"}"#))
        #expect(value.value(atPath: "alerts.0.labels") == .object([
            "account": .string("jane"), "account_upn": .string("jane@contoso.com"), "alertname": .string("failed-burst"),
            "alert_id": .string("jane-a-1"), "severity": .string("high"), "kind": .string("detection"), "ipAddress": .string("203.0.113.9"),
        ]))
    }

    /// The recovery's `resolved` carries the labels the problem notice fired with, the account's
    /// included, so the receiver closes that person's alert and no one else's.
    @Test func anAccountsRecoveryResolvesItsOwnProblemNotice() {
        let since = Date(timeIntervalSince1970: 1_800_000_000)
        var problem = AgentProblem(kind: .signInNeeded, detail: "refresh token revoked", since: since, notified: true)
        let opened = SystemNotice.alert(.signInNeeded, problem: problem, anchor: since, now: since.addingTimeInterval(60))
        problem.noticeID = opened.id
        let recovery = SystemNotice.alert(.recovered, problem: problem, anchor: since, now: since.addingTimeInterval(3600), resolves: opened.id)
        let firing = body(.alertmanager, Self.janes(opened))
        let resolved = body(.alertmanager, Self.janes(recovery))
        #expect(resolved["status"] == .string("resolved"))
        for path in ["groupKey", "alerts.0.labels", "alerts.0.fingerprint"] {
            #expect(resolved.value(atPath: path) == firing.value(atPath: path), "\(path)")
        }
        #expect(firing.value(atPath: "alerts.0.labels.account") == .string("jane"))
        #expect(firing.value(atPath: "alerts.0.labels.alert_id") == .string("jane-" + opened.id))
    }

    @Test func phonePresetsNameTheAccount() {
        let lines = "Account: jane (jane@contoso[.]com)\nTime: 2025-12-02T10:01:00.250Z\nPlace: Paris, FR, address 203[.]0[.]113[.]9\nSign-in: Azure Portal\n5 failed sign-ins from 203[.]0[.]113[.]9 in 10m\nSign-ins: 2\nRule: failed-burst · alert jane-a-1"
        let ntfy = body(.ntfy(topic: "t"))
        #expect(ntfy["title"] == .string("HIGH: Failed sign-in burst - jane"))
        #expect(ntfy["message"] == .string(lines))
        let gotify = body(.gotify)
        #expect(gotify["title"] == .string("HIGH: Failed sign-in burst - jane"))
        #expect(gotify["message"] == .string(lines))
        #expect(body(.telegram(chatID: "1"))["text"] == .string("HIGH: Failed sign-in burst - jane\n" + lines))
    }

    @Test func emailSubjectAndBodyNameTheAccount() {
        let (headers, _) = parseMessage(EmailMessage.text(for: Self.janes(), from: "tophhie-watch@host-a", to: ["sec@example.org"], messageHost: "host-a"))
        #expect(headers.first(where: { $0.0 == "Subject" })?.1 == "[HIGH] Failed sign-in burst - jane (jane@contoso[.]com)")
        #expect(headers.first(where: { $0.0 == "Message-ID" })?.1 == "<jane-a-1.tophhie-watch@host-a>")
        #expect(PersonalAlertText.text(Self.janes()).hasPrefix("HIGH: Failed sign-in burst - jane\nAccount: jane (jane@contoso[.]com)\nTime: "))
        // Without the principal name, the account the alert is grouped by stands in for it.
        var grouped = NotifierTestAlerts.alert()
        grouped.group = [AlertGroupValue(field: "userId", value: "26be")]
        let sam = grouped.attributed(to: AlertAccount(name: "sam"), distinguishingID: true)
        #expect(EmailMessage.subject(sam) == "[HIGH] Failed sign-in burst - sam (object id 26be)")
        #expect(EmailMessage.subject(NotifierTestAlerts.alert().attributed(to: AlertAccount(name: "sam"), distinguishingID: true)) == "[HIGH] Failed sign-in burst - sam")
    }

    /// The principal name comes from Graph: in each output it is escaped, defanged or made inert
    /// as the device and app names are.
    @Test func aHostilePrincipalNameIsEscapedInEveryOutput() throws {
        let hostile = NotifierTestAlerts.alert().attributed(to: AlertAccount(name: "jane", userPrincipalName: "<!channel>\u{202E}@evil.example\nX: 1"), distinguishingID: true)
        let key = try PagerDutyRoutingKey("R0123456789abcdef0123456789abcde")
        for preset in [WebhookPreset.generic, .pagerDuty(routingKey: key), .alertmanager] {
            let text = String(decoding: preset.body(for: hostile, context: Self.context).canonicalData(), as: UTF8.self)
            #expect(!text.contains("<!channel>") && !text.unicodeScalars.contains("\u{202E}"), "\(preset)")
        }
        let syslog = SyslogNotifier(settings: .init(transport: .udp(host: "127.0.0.1", port: 9), hostname: "h"), now: { SyslogMessageTests.fixedTime })
        #expect(syslog.message(for: hostile).structuredData[0].parameters[2].value == #"<!channel>\u{202e}@evil.example\nX: 1"#)
        #expect(body(.slack, hostile).value(atPath: "blocks.1.text.text")?.stringValue?.hasPrefix(#"*Account:* jane (&lt;!channel&gt;\u{202e}@evil.example\nX: 1)"#) == true)
        #expect(body(.discord, hostile).value(atPath: "embeds.0.fields.0.value") == .string(#"jane \(<!channel\>\\u{202e}@evil.example\\nX: 1\)"#))
        #expect(PersonalAlertText.bodyLines(hostile)[0] == #"Account: jane (<!channel>\u{202e}@evil[.]example\nX: 1)"#)
        #expect(EmailMessage.subject(hostile) == #"[HIGH] Failed sign-in burst - jane (<!channel>\u{202e}@evil[.]example\nX: 1)"#)
        let json = StdoutNotifier(settings: .init(format: .jsonLines)).render(hostile)
        #expect(json.hasPrefix(#"{"account":{"name":"jane","userPrincipalName":"<!channel>\u202e@evil.example\nX: 1"},"#))
    }

    /// An alert queued before accounts existed reads back as the one account's, and is written
    /// again byte for byte as it was.
    @Test func anOutboxEntryWrittenBeforeAccountsStillReads() throws {
        let line = #"{"alert":{"detectedAt":1764680700,"eventCount":1,"events":[{"id":"ev-0","time":1764669600.25}],"firstEventTime":1764669600.25,"group":[],"id":"a-1","kind":"detection","lastEventTime":1764669600.25,"late":false,"level":"high","rule":{"id":"failed-burst","level":"high","tags":[],"title":"Failed sign-in burst"},"sentence":"s","summary":"s"},"appendedAt":1764680700}"#
        let entry = try OutboxCoding.decoder().decode(OutboxEntry.self, from: Data(line.utf8))
        #expect(entry.alert.account == nil)
        #expect(entry.alert.id == "a-1")
        #expect(try OutboxCoding.line(entry) == Array((line + "\n").utf8))
        // One written with an account reads back with it.
        let attributed = OutboxEntry(alert: Self.janes(), appendedAt: NotifierTestAlerts.baseTime)
        let read = try OutboxCoding.decoder().decode(OutboxEntry.self, from: Data(try OutboxCoding.line(attributed).dropLast()))
        #expect(read.alert.account == Self.jane)
        #expect(read == attributed)
    }
}
