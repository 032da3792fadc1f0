import Foundation
import Testing
import TophhieJSON
import TophhieRules
@testable import TophhieReport

/// The page on its own: each part from a small month of sign-ins, and nothing from the log
/// ever becomes markup.
@Suite struct ReportPageTests {
    static let start = Date(timeIntervalSince1970: 1_714_521_600) // 2024-05-01T00:00:00Z

    static func signIn(_ id: String, hours: Double, code: Int64 = 0, interactive: Bool = true, city: String = "London", country: String = "GB",
                       at: (Double, Double)? = (51.5, -0.12), device: String = "Firefox on Linux", app: String = "Office 365", ip: String = "81.2.69.10") -> ReportSignIn {
        ReportSignIn(id: id, time: start.addingTimeInterval(hours * 3600), errorCode: code, interactive: interactive, city: city, country: country,
                     latitude: at?.0, longitude: at?.1, device: device, app: app, ipAddress: ip)
    }

    static func alert(_ id: String, rule: String, summary: String, events: [ReportSignIn], hours: Double) -> Alert {
        Alert(id: id, rule: AlertRule(id: rule, title: "Rule \(rule)", level: .high, tags: [], author: "Tophhie Watch"), level: .high, summary: summary, group: [],
              events: events.map { AlertEvent(id: $0.id, time: $0.time, errorCode: $0.errorCode, app: $0.app, ipAddress: $0.ipAddress, location: $0.placeName, device: $0.device) },
              firstEventTime: events.first!.time, lastEventTime: events.last!.time, detectedAt: start.addingTimeInterval(hours * 3600), late: false)
    }

    static func month() -> (signIns: [ReportSignIn], alerts: [Alert]) {
        var signIns = (0..<20).map { signIn("home-\($0)", hours: Double($0) * 24 + 9) }
        signIns += (0..<5).map { signIn("lagos-\($0)", hours: 200 + Double($0) / 60, code: 50126, city: "Lagos", country: "NG", at: (6.52, 3.38), device: "curl", ip: "105.112.96.9") }
        signIns.append(signIn("mfa", hours: 300, code: 50074))
        signIns.append(signIn("refresh", hours: 301, interactive: false))
        let sydney = signIn("sydney", hours: 310, city: "Sydney", country: "AU", at: (-33.87, 151.21), ip: "1.1.1.1")
        signIns.append(sydney)
        signIns.append(signIn("nowhere", hours: 320, city: "", country: "", at: (125.16, 51.5)))
        let alerts = [
            alert("burst", rule: "failure-burst", summary: "5 events within 10m", events: Array(signIns[20..<25]), hours: 201),
            alert("travel", rule: "impossible-travel", summary: "16994 km from London, GB to Sydney, AU in 40m", events: [signIns[12], sydney], hours: 311),
            alert("country", rule: "new-country", summary: "first location.countryOrRegion 'AU'", events: [sydney], hours: 311),
        ]
        return (signIns, alerts)
    }

    static func page(_ signIns: [ReportSignIn], _ alerts: [Alert]) -> (SignInDigest, String) {
        let digest = SignInDigest(signIns: signIns, alerts: alerts, from: start, to: start.addingTimeInterval(30 * 86_400 - 1))
        return (digest, ReportPage.html(digest, generatedAt: start.addingTimeInterval(31 * 86_400), version: "9.9.9"))
    }

    static func occurrences(_ text: String, _ part: String) -> Int { text.components(separatedBy: part).count - 1 }

    @Test func theSummaryCountsThePeriod() {
        let (signIns, alerts) = Self.month()
        let (digest, html) = Self.page(signIns, alerts)
        #expect(digest.signIns == 29)
        #expect(digest.outcomes == [.success: 23, .failure: 5, .interrupted: 1])
        #expect(html.contains("<p class=\"summary\" id=\"summary\">29 sign-ins (5 failed, 1 interrupted for more proof), 3 countries, 2 devices, 3 alerts, from 2024-05-01 to 2024-05-30.</p>"), "\(html.prefix(3000))")
    }

    @Test func theMapHasACirclePerPlaceTravelLinesAndNewPlacesRinged() {
        let (signIns, alerts) = Self.month()
        let (digest, html) = Self.page(signIns, alerts)
        #expect(digest.places.map(\.name) == ["London, GB", "Lagos, NG", "Sydney, AU"])
        #expect(digest.unplaced == 1, "latitude 125.16 is no place")
        #expect(Self.occurrences(html, "<circle class=\"place ") == 3)
        #expect(html.contains("<circle class=\"place failure\""), "Lagos: all failed")
        #expect(html.contains("<circle class=\"place success new\""), "Sydney: named by the new-country alert")
        #expect(Self.occurrences(html, "<line class=\"trip\" data-alert=\"travel\"") == 1)
        #expect(html.contains("<td>Lagos, NG</td><td class=\"n\">5</td><td class=\"n\">0</td><td class=\"n\">5</td><td class=\"n\">0</td>"), "the same figures as a table")
        #expect(html.contains("<path class=\"land\" d=\"M"))
    }

    @Test func theTimelineKeepsTheStreamsApartAndMarksAlertDays() {
        let (signIns, alerts) = Self.month()
        let (digest, html) = Self.page(signIns, alerts)
        #expect(digest.days.count == 30)
        #expect(digest.days[12].nonInteractive == [.success: 1])
        #expect(digest.days[8].interactive == [.failure: 5, .success: 1])
        #expect(Self.occurrences(html, "class=\"alert-mark\"") == 2, "two days with alerts")
        #expect(html.contains("2024-05-13 non-interactive: 1 success"))
        #expect(digest.hours.flatMap { $0 }.reduce(0, +) == 29)
        #expect(html.contains("<caption>Sign-ins by weekday and hour (UTC)</caption>"))
    }

    /// The timeline shades the days past the tenant's retention and the sign-ins an alert fired
    /// on late.
    @Test func theTimelineShadesRetentionAndLateArrivals() {
        var (signIns, alerts) = Self.month()
        alerts[0].late = true
        let digest = SignInDigest(signIns: signIns, alerts: alerts, from: Self.start, to: Self.start.addingTimeInterval(30 * 86_400 - 1),
                                  retentionFloor: Self.start.addingTimeInterval(23 * 86_400))
        #expect(digest.bands.map(\.kind) == [.retention, .late])
        #expect(digest.bands[0].to == Self.start.addingTimeInterval(23 * 86_400))
        #expect(digest.bands[1].from == signIns[20].time && digest.bands[1].to == signIns[24].time)
        let html = ReportPage.html(digest, generatedAt: Self.start, version: "9.9.9")
        #expect(Self.occurrences(html, "<rect class=\"band retention\"") == 1)
        #expect(Self.occurrences(html, "<rect class=\"band late\"") == 1)
        #expect(html.contains("beyond the tenant&#39;s retention") || html.contains("beyond the tenant's retention"))
        let (plain, _) = Self.page(signIns, Self.month().alerts)
        #expect(plain.bands.isEmpty, "a file read whole has no retention floor, and no alert here was late")
    }

    @Test func alertsAreNewestFirstWithTheirSignIns() throws {
        let (signIns, alerts) = Self.month()
        let (_, html) = Self.page(signIns, alerts)
        let travel = try #require(html.range(of: "id=\"alert-travel\""))
        let burst = try #require(html.range(of: "id=\"alert-burst\""))
        #expect(travel.lowerBound < burst.lowerBound)
        #expect(html.contains("<td>2024-05-09 08:01 UTC</td><td class=\"n\">50126</td><td>Office 365</td><td class=\"address\">105.112.96.9</td><td>Lagos, NG</td><td>curl</td>"))
    }

    @Test func tablesSayWhenEachWasFirstAndLastSeenAndMarkTheNew() {
        let (signIns, alerts) = Self.month()
        let (digest, html) = Self.page(signIns, alerts)
        #expect(digest.countries.map(\.value) == ["GB", "NG", "AU"])
        #expect(digest.countries.last?.isNew == true)
        #expect(html.contains("<tr class=\"new\"><td>AU <span class=\"new-mark\">new</span></td><td class=\"n\">1</td>"))
        for table in ["countries", "devices", "apps", "addresses"] { #expect(html.contains("id=\"seen-\(table)\"")) }
    }

    /// The page loads nothing: one policy forbidding everything but its inline style, no
    /// script, no link, no URL at all.
    @Test func thePageIsSelfContained() {
        let (signIns, alerts) = Self.month()
        let (_, html) = Self.page(signIns, alerts)
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'\">"))
        for forbidden in ["<script", "<link", "<img", "<iframe", "href=", "src=", "http:", "https:", "url(", "@import"] {
            #expect(!html.contains(forbidden), "\(forbidden)")
        }
        #expect(html.contains("@media (prefers-color-scheme:dark)") && html.contains("@media print"))
    }

    /// Device, app and city names are the attacker's: none becomes an element, attribute or URL.
    @Test func aHostileCorpusRendersAsText() {
        let hostile = ["<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "javascript:alert(1)", "' onmouseover='x", "gnp\u{202E}exe.txt", "line\u{2028}break\u{0}", String(repeating: "A", count: 100_000)]
        var signIns: [ReportSignIn] = []
        for (index, text) in hostile.enumerated() {
            signIns.append(Self.signIn("h\(index)", hours: Double(index), code: 50126, city: text, country: text, device: text, app: text, ip: text))
        }
        let alert = Self.alert(hostile[1], rule: "failure-burst", summary: hostile[0] + hostile[1], events: signIns, hours: 10)
        let (_, html) = Self.page(signIns, [alert])
        for forbidden in ["<script", "<img", " onerror=alert(1)>", "\u{202E}", "\u{2028}", "\u{0}"] {
            #expect(!html.contains(forbidden), "\(forbidden.debugDescription)")
        }
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"))
        #expect(html.contains("gnp\\u{202e}exe.txt"))
        #expect(!html.contains(String(repeating: "A", count: 121)), "a 100 KB name is cut")
        #expect(html.utf8.count < 200_000)
    }

    @Test(arguments: [("a<b", "a&lt;b"), ("\"'&>", "&quot;&#39;&amp;&gt;"), ("r\u{202E}l", "r\\u{202e}l"), ("tab\there", "tab\\u{9}here"),
                      ("LAP\u{E0041}TOP", "LAP\\u{e0041}TOP"), ("lap\u{AD}top", "lap\\u{ad}top"), ("a\u{180E}b", "a\\u{180e}b"), ("a\u{34F}b", "a\\u{34f}b"),
                      ("\u{115F}\u{1160}\u{3164}\u{FFA0}", "\\u{115f}\\u{1160}\\u{3164}\\u{ffa0}"), ("x\u{FE0F}", "x\\u{fe0f}"), ("x\u{E0100}", "x\\u{e0100}")])
    func textIsEscaped(_ text: String, _ escaped: String) {
        #expect(HTMLText.escape(text) == escaped)
    }

    @Test func theOutlineIsNaturalEarthsInTheFrame() {
        #expect(WorldMap.outline.utf8.count > 40_000)
        #expect(WorldMap.point(latitude: 0, longitude: 0) == (500, 250))
        #expect(WorldMap.point(latitude: 90, longitude: -180) == (0, 0))
    }

    /// The page answers first: the verdict, the account, the period and when it was written,
    /// then the alerts (the takeover ones with what to do), and only then the map.
    @Test func theAnswerComesBeforeTheMap() throws {
        var (signIns, alerts) = Self.month()
        alerts.append(Self.alert("token", rule: "token-from-new-place", summary: "token used from Sydney, AU", events: [signIns[27]], hours: 312))
        let digest = SignInDigest(signIns: signIns, alerts: alerts, from: Self.start, to: Self.start.addingTimeInterval(30 * 86_400))
        let context = ReportContext(accountName: "Jane Doe", userPrincipalName: "jane@contoso.com", generatedAt: Self.start.addingTimeInterval(30 * 86_400), endsNow: true)
        let html = ReportPage.html(digest, context: context, version: "9.9.9")
        #expect(html.contains("<p class=\"verdict found\" id=\"verdict\">4 high alerts in the last 30 days</p>"))
        #expect(html.contains("<p class=\"account\" id=\"account\">Account: Jane Doe (jane@contoso.com)</p>"))
        #expect(html.contains("<p class=\"period\" id=\"period\">Period: 2024-05-01 00:00 UTC to 2024-05-31 00:00 UTC. Written 2024-05-31 00:00 UTC.</p>"))
        let verdict = try #require(html.range(of: "id=\"verdict\""))
        let firstAlert = try #require(html.range(of: "<article class=\"alert"))
        let map = try #require(html.range(of: "<svg class=\"map\""))
        #expect(verdict.lowerBound < firstAlert.lowerBound && firstAlert.lowerBound < map.lowerBound)
        #expect(html[firstAlert.lowerBound...].hasPrefix("<article class=\"alert high\" id=\"alert-token\">"), "newest first")
        #expect(html.contains("<ol class=\"steps\"><li>revoke every session of your account: tophhie-watch respond --revoke-sessions</li><li>change your password</li>"))
        #expect(html.contains("review your security info: mysignins.microsoft.com</li></ol>"), "the page names no URL")
        #expect(!html.contains("https:"))
    }

    @Test func theVerdictNamesLevelsAndThePeriod() {
        var (signIns, alerts) = Self.month()
        alerts[0].level = .medium
        let from = Self.start, to = Self.start.addingTimeInterval(7 * 86_400)
        let mixed = SignInDigest(signIns: signIns, alerts: alerts, from: from, to: to)
        #expect(ReportPage.verdict(mixed, context: ReportContext(generatedAt: to)) == "2 high and 1 medium alerts between 2024-05-01 00:00 UTC and 2024-05-08 00:00 UTC")
        let quiet = SignInDigest(signIns: signIns, alerts: [], from: from, to: to)
        let london = ReportTime(zone: TimeZone(identifier: "Europe/London")!)
        #expect(ReportPage.verdict(quiet, context: ReportContext(generatedAt: to, time: london, endsNow: true)) == "nothing found between 2024-05-01 01:00 +01:00 (00:00 UTC) and 2024-05-08 01:00 +01:00 (00:00 UTC)")
        signIns.removeAll()
        #expect(ReportPage.span(300) == "5 minutes" && ReportPage.span(86_400) == "1 day" && ReportPage.span(7_200) == "2 hours")
    }

    /// Times in the zone chosen, UTC beside; the hour grid counts in that zone.
    @Test func timesAreInTheChosenZoneWithUTCBeside() {
        let (signIns, alerts) = Self.month()
        let tokyo = ReportTime(zone: TimeZone(identifier: "Asia/Tokyo")!)
        let digest = SignInDigest(signIns: signIns, alerts: alerts, from: Self.start, to: Self.start.addingTimeInterval(30 * 86_400 - 1), time: tokyo)
        let html = ReportPage.html(digest, context: ReportContext(generatedAt: Self.start, time: tokyo), version: "9.9.9")
        #expect(html.contains("<td>2024-05-09 17:01 +09:00 (08:01 UTC)</td>"))
        #expect(html.contains("<caption>Sign-ins by weekday and hour (Asia/Tokyo)</caption>"))
        // Home sign-ins at 09:00 UTC are at 18:00 in Tokyo.
        #expect(digest.hours.map { $0[18] }.reduce(0, +) >= 20)
        #expect(ReportTime.clock(Date(timeIntervalSince1970: 951_782_400), offset: 0) == "2000-02-29 00:00")
        #expect(ReportTime.offsetText(-16_200) == "-04:30")
    }

    /// Headers are words, in the singular, never broken inside a word.
    @Test func headersAreWholeWords() {
        let (signIns, alerts) = Self.month()
        let (_, html) = Self.page(signIns, alerts)
        for header in ["country", "device", "app", "address"] { #expect(html.contains("<thead><tr><th>\(header)</th><th>sign-ins</th>")) }
        #expect(!html.contains("<th>countrie<") && !html.contains("<th>addresse<"))
        #expect(!ReportPage.style.contains("overflow-wrap:anywhere"), "anywhere breaks headers and addresses inside words")
        #expect(ReportPage.style.contains("th{white-space:nowrap}") && ReportPage.style.contains("td.address{white-space:nowrap}"))
    }

    /// With the agent's state at hand: the learning line, and its coverage gaps and learning
    /// shaded on the timeline.
    @Test func theAgentsLearningAndGapsAreShown() {
        let (signIns, alerts) = Self.month()
        var digest = SignInDigest(signIns: signIns, alerts: alerts, from: Self.start, to: Self.start.addingTimeInterval(30 * 86_400 - 1))
        digest.shade(.gap, from: Self.start.addingTimeInterval(-86_400), to: Self.start.addingTimeInterval(2 * 86_400))
        digest.shade(.learning, from: Self.start.addingTimeInterval(25 * 86_400), to: Self.start.addingTimeInterval(40 * 86_400))
        digest.shade(.gap, from: Self.start.addingTimeInterval(-9 * 86_400), to: Self.start.addingTimeInterval(-8 * 86_400))
        #expect(digest.bands.map(\.kind) == [.gap, .learning], "a gap outside the period is not drawn")
        #expect(digest.bands[0].from == Self.start)
        let learning = "place rules learning until at least 2024-06-10T00:00:00Z (4 of 5 days, 3 of 10 of your own successes so far)"
        let html = ReportPage.html(digest, context: ReportContext(generatedAt: Self.start, placeLearning: learning), version: "9.9.9")
        #expect(html.contains("<p class=\"learning\" id=\"learning\">The agent\u{2019}s place rules learning until at least 2024-06-10T00:00:00Z (4 of 5 days, 3 of 10 of your own successes so far)"))
        #expect(Self.occurrences(html, "<rect class=\"band gap\"") == 1 && Self.occurrences(html, "<rect class=\"band learning\"") == 1)
        #expect(html.contains("a coverage gap, sign-ins the agent could no longer read"))
    }

    /// A JSON-lines file that starts with a byte order mark keeps its first sign-in.
    @Test func aByteOrderMarkDoesNotCostTheFirstSignIn() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tophhie-report-bom-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var bytes: [UInt8] = [0xEF, 0xBB, 0xBF]
        for i in 0..<3 {
            bytes += Array(#"{"id":"s\#(i)","createdDateTime":"2024-05-01T10:0\#(i):00Z","status":{"errorCode":0},"userPrincipalName":"jane@contoso.com","userDisplayName":"Jane"}"#.utf8) + [10]
        }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let read = try ReportInput.read(path)
        #expect(read.signIns.map(\.id) == ["s0", "s1", "s2"])
        #expect(read.skipped == 0)
        let digest = SignInDigest(signIns: read.signIns, alerts: [], from: Self.start, to: Self.start.addingTimeInterval(86_400))
        #expect(digest.account?.userPrincipalName == "jane@contoso.com" && digest.account?.name == "Jane")
    }
}
