import Foundation
import TophhieTestSupport
import Testing
@testable import TophhieRules

/// Alerts in words: each rule's `tophhie.summary` template, filled from the alert's sign-ins,
/// is what a person reads; the rule's own terms stay beside it in the JSON.
@Suite(.timeLimit(.minutes(20))) struct AlertSentenceTests {
    static func alert(events: [AlertEvent], count: Int? = nil, title: String = "Burst of failed sign-ins") -> Alert {
        Alert(id: "a", rule: AlertRule(id: "r", title: title, level: .high), level: .high, summary: "6 events over 4m (gte 5 within 10m)",
              group: [], events: events, eventCount: count, firstEventTime: events.first!.time, lastEventTime: events.last!.time,
              detectedAt: events.last!.time, late: false)
    }

    static let moscow = AlertEvent(id: "m", time: Date(timeIntervalSince1970: 1_000_000), app: "Outlook Mobile", ipAddress: "95.165.28.126", location: "Moscow, RU")

    @Test func aTemplateNamesThePlaceTheAppAndTheAddressInWords() throws {
        let sentence = try AlertSentence(template: "Your account was used from {place} ({address}) by {app}: a country you have never signed in from")
        #expect(sentence.render(Self.alert(events: [Self.moscow])) == "Your account was used from Moscow, Russia (95.165.28.126) by Outlook Mobile: a country you have never signed in from")
    }

    @Test(arguments: [
        (0.0, "under a minute"), (59.0, "under a minute"), (60.0, "1 minute"), (240.0, "4 minutes"), (7140.0, "119 minutes"),
        (7200.0, "2 hours"), (86_400.0, "24 hours"), (172_800.0, "2 days"),
    ])
    func spansReadAsPeopleSayThem(_ seconds: Double, _ text: String) {
        #expect(AlertSentence.span(seconds) == text)
    }

    @Test func countsAndSpansComeFromTheWholeAlert() throws {
        let first = AlertEvent(id: "f", time: Date(timeIntervalSince1970: 0), ipAddress: "105.112.96.9", location: "Lagos, NG")
        let last = AlertEvent(id: "l", time: Date(timeIntervalSince1970: 240), ipAddress: "105.112.96.10", location: "Abuja, NG")
        let sentence = try AlertSentence(template: "{count} failed sign-ins in {span}, from {from} to {to}, the last from {address}")
        #expect(sentence.render(Self.alert(events: [first, last], count: 6)) == "6 failed sign-ins in 4 minutes, from Lagos, Nigeria to Abuja, Nigeria, the last from 105.112.96.10")
    }

    @Test(arguments: [
        ("Moscow, RU", "Moscow, Russia"), ("RU", "Russia"), ("Abidjan, CI", "Abidjan, Côte d'Ivoire"),
        // Not a code ISO assigns, or no code at all: as Entra wrote it.
        ("Somewhere, XX", "Somewhere, XX"), ("London", "London"), ("Washington, D.C., US", "Washington, D.C., United States"),
        // The last ", " alone divides; two letters that are not ASCII are no code ("ß" upper-cases to SS).
        ("Paris,FR", "Paris,FR"), ("Köln, , DE", "Köln, , Germany"), ("Berlin, ß", "Berlin, ß"), ("ß", "ß"), (", US", ", United States"),
        // A code in any case, raised byte by byte; a letter either side of a–z is no code.
        ("Porto, pt", "Porto, Portugal"), ("Porto, pT", "Porto, Portugal"), ("zw", "Zimbabwe"), ("Somewhere, `z", "Somewhere, `z"), ("{a", "{a"),
    ])
    func placesNameTheirCountry(_ location: String, _ place: String) {
        #expect(AlertSentence.place(location) == place)
    }

    @Test func missingValuesAreSaidPlainly() throws {
        let bare = AlertEvent(id: "b", time: Date(timeIntervalSince1970: 0))
        let sentence = try AlertSentence(template: "{app} from {place} ({address}) on {device} in {country}")
        #expect(sentence.render(Self.alert(events: [bare])) == "an app from an unknown place (an unknown address) on an unknown device in an unknown country")
    }

    /// An app's name is the attacker's to choose, and may be long: a sentence and a summary past
    /// the room they are put together in on the stack hold every byte, in order.
    @Test func longValuesAreWrittenWhole() throws {
        for length in [1000, 1010, 1024, 1025, 5000] {
            let app = String(repeating: "é", count: length / 4) + String(repeating: "x", count: length - length / 4)
            let event = AlertEvent(id: "l", time: Date(timeIntervalSince1970: 0), errorCode: -7, app: app, ipAddress: "192.0.2.1", location: "Lagos, NG")
            let sentence = try AlertSentence(template: "{app} from {place} ({address}), {count} of them")
            #expect(sentence.render(Self.alert(events: [event])) == app + " from Lagos, Nigeria (192.0.2.1), 1 of them", "\(length)")
            #expect(AlertFactory.singleSummary(event) == "error -7 " + app + " from 192.0.2.1 (Lagos, NG)", "\(length)")
        }
    }

    /// A rule without a template (SigmaHQ's) reads as its title and the sign-in.
    @Test func aRuleWithoutATemplateReadsAsItsTitleAndTheSignIn() {
        let alert = Self.alert(events: [Self.moscow], title: "Sign-in with a device code")
        #expect(AlertSentence.plain(forCount: 1).render(alert) == "Sign-in with a device code: Outlook Mobile from Moscow, Russia (95.165.28.126)")
        let later = AlertEvent(id: "n", time: Self.moscow.time.addingTimeInterval(600), app: "Outlook Mobile", ipAddress: "95.165.28.127", location: "Moscow, RU")
        #expect(AlertSentence.plain(forCount: 7).render(Self.alert(events: [Self.moscow, later], count: 7))
            == "Burst of failed sign-ins: 7 sign-ins in 10 minutes, the last by Outlook Mobile from Moscow, Russia (95.165.28.127)")
    }

    @Test(arguments: [
        ("Used from {plac}", "unknown value '{plac}' in the summary template: did you mean '{place}'? (known: place, country, address, app, device, count, span, from, to, title)"),
        ("Used from {place", "an unclosed '{' in the summary template"),
        ("Used } from", "a '}' without its '{' in the summary template (write '}}' for a brace)"),
    ])
    func aTemplateThatCannotBeFilledIsRefusedWithItsReason(_ template: String, _ message: String) {
        #expect(throws: AlertSentence.TemplateError(message: message)) { try AlertSentence(template: template) }
    }

    @Test func doubledBracesAreBraces() throws {
        #expect(try AlertSentence(template: "{{literally}} {count}").render(Self.alert(events: [Self.moscow])) == "{literally} 1")
    }

    /// A rule file's template is checked at load: the error names the file's line, as every
    /// rule error does.
    @Test func aRuleFileWithABrokenTemplateDoesNotLoad() {
        let text = """
            title: T
            id: t
            logsource: {product: azure, service: signinlogs}
            detection: {selection: {ResultType: 1}, condition: selection}
            tophhie:
                summary: "Used from {plac}"
            """
        let set = RuleLoader.load([RuleSource(path: "t.yml", text: text)])
        #expect(set.detections.isEmpty)
        #expect(set.diagnostics.map { "\($0.line): \($0.message)" } == ["6: 'tophhie.summary': unknown value '{plac}' in the summary template: did you mean '{place}'? (known: place, country, address, app, device, count, span, from, to, title)"])
    }

    /// No alert text from the shipped rules contains a field path: every alert every rule's test
    /// cases raise, in both the JSON's `summary` and the sentence every channel shows, reads in
    /// words; the rule's own terms stay in `summary_technical`.
    @Test func noAlertFromTheShippedRulesSpeaksInFieldPaths() throws {
        let set = RuleLoader.load(try RuleSource.read(paths: [RepoPaths.rules]), placeholders: .testing)
        let tests = try RuleSource.read(paths: [RepoPaths.rules], select: RuleSource.isTestFile)
        // The fields the shipped rules read and group by, as the rules write them.
        let paths = ["authenticationDetails", "deviceDetail.", "location.", "status.", "errorCode", "autonomousSystemNumber",
                     "countryOrRegion", "authenticationRequirement", "isInteractive", "ipAddress", "userId", "appId"]
        var seen = 0
        for source in tests {
            let file = try RuleTestFile(source: source)
            for testCase in file.cases {
                var state = EngineState()
                for poll in testCase.polls {
                    let outcome = PlainEvaluator(rules: set).evaluate(state, events: poll.events, now: poll.at, alertOnlyAfter: testCase.alertAfter)
                    state = outcome.state
                    for alert in outcome.alerts {
                        seen += 1
                        let shown = AlertJSON.value(alert)["summary"]?.stringValue ?? ""
                        #expect(shown == alert.sentence)
                        #expect(!alert.sentence.contains("{") && alert.sentence != alert.summary, "\(alert.rule.id): \(alert.sentence)")
                        for path in paths {
                            #expect(!alert.sentence.contains(path), "\(alert.rule.id) says '\(path)': \(alert.sentence)")
                        }
                        #expect(AlertJSON.value(alert)["summary_technical"]?.stringValue == alert.summary)
                    }
                }
            }
        }
        #expect(seen >= 30)
    }
}
