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
        #expect(html.contains("<td>2024-05-09T08:01:00.000Z</td><td class=\"n\">50126</td><td>Office 365</td><td>105.112.96.9</td><td>Lagos, NG</td><td>curl</td>"))
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

    @Test(arguments: [("a<b", "a&lt;b"), ("\"'&>", "&quot;&#39;&amp;&gt;"), ("r\u{202E}l", "r\\u{202e}l"), ("tab\there", "tab\\u{9}here")])
    func textIsEscaped(_ text: String, _ escaped: String) {
        #expect(HTMLText.escape(text) == escaped)
    }

    @Test func theOutlineIsNaturalEarthsInTheFrame() {
        #expect(WorldMap.outline.utf8.count > 40_000)
        #expect(WorldMap.point(latitude: 0, longitude: 0) == (500, 250))
        #expect(WorldMap.point(latitude: 90, longitude: -180) == (0, 0))
    }
}
