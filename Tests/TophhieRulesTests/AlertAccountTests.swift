import Foundation
import Testing
import TophhieJSON
@testable import TophhieRules

/// `Alert.attributed(to:distinguishingID:)`: whose an alert is, and an id per account.
@Suite struct AlertAccountTests {
    static let at = Date(timeIntervalSince1970: 1_788_000_000)
    static let jane = AlertAccount(name: "jane", userPrincipalName: "jane@contoso.com")
    static let sam = AlertAccount(name: "sam")

    static func alert(id: String = "0123456789abcdef0123456789abcdef") -> Alert {
        Alert(id: id, rule: AlertRule(id: "failure-burst", title: "Burst", level: .medium), level: .medium, summary: "5 failures",
              group: [.init(field: "ipAddress", value: "203.0.113.9")], events: [AlertEvent(id: "e1", time: at)],
              firstEventTime: at, lastEventTime: at, detectedAt: at, late: false)
    }

    @Test func twoPeoplesIdenticalAlertsGetTwoIdsAndTheirLinksFollow() {
        var reminder = Self.alert(id: "ffffffffffffffffffffffffffffffff")
        reminder.episodeID = "0123456789abcdef0123456789abcdef"
        reminder.reminder = 1
        var recovery = Self.alert(id: "notice-1")
        recovery.resolves = "notice-0"
        for alert in [Self.alert(), reminder, recovery] {
            let jane = alert.attributed(to: Self.jane, distinguishingID: true)
            let sam = alert.attributed(to: Self.sam, distinguishingID: true)
            #expect(jane.id != sam.id)
            #expect(jane.id == "jane-" + alert.id)
            #expect(sam.id == "sam-" + alert.id)
            #expect(jane.account == Self.jane && sam.account == Self.sam)
        }
        #expect(reminder.attributed(to: Self.jane, distinguishingID: true).episodeID == "jane-0123456789abcdef0123456789abcdef")
        #expect(reminder.attributed(to: Self.sam, distinguishingID: true).episodeID == "sam-0123456789abcdef0123456789abcdef")
        #expect(recovery.attributed(to: Self.jane, distinguishingID: true).resolves == "jane-notice-0")
        // The alert a reminder or recovery points at, attributed the same way, has that id.
        #expect(Self.alert().attributed(to: Self.jane, distinguishingID: true).id == reminder.attributed(to: Self.jane, distinguishingID: true).episodeID)
    }

    /// The one account of a configuration without `accounts:` keeps today's ids.
    @Test func withoutDistinguishingTheIdsStay() {
        var recovery = Self.alert(id: "notice-1")
        recovery.resolves = "notice-0"
        let named = recovery.attributed(to: AlertAccount(name: "default"), distinguishingID: false)
        #expect(named.id == "notice-1" && named.resolves == "notice-0")
        #expect(named.account == AlertAccount(name: "default"))
    }

    @Test func attributingTwiceToOneAccountChangesNothing() {
        let once = Self.alert().attributed(to: Self.jane, distinguishingID: true)
        #expect(once.attributed(to: Self.jane, distinguishingID: true) == once)
    }

    @Test func theJSONCarriesTheAccount() {
        let jane = Self.alert().attributed(to: Self.jane, distinguishingID: true)
        #expect(AlertJSON.line(jane).hasPrefix(#"{"account":{"name":"jane","userPrincipalName":"jane@contoso.com"},"detectedAt":"#))
        #expect(AlertJSON.value(jane)["account"] == .object(["name": .string("jane"), "userPrincipalName": .string("jane@contoso.com")]))
        let sam = Self.alert().attributed(to: Self.sam, distinguishingID: true)
        #expect(AlertJSON.line(sam).hasPrefix(#"{"account":{"name":"sam"},"detectedAt":"#))
        #expect(AlertJSON.line(Self.alert()).hasPrefix(#"{"detectedAt":"#))
    }

    /// Before accounts, an alert had no `account`; one decoded from then has none.
    @Test func anAlertWithoutAccountDecodes() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        let old = try encoder.encode(Self.alert())
        #expect(!String(decoding: old, as: UTF8.self).contains("account"))
        #expect(try decoder.decode(Alert.self, from: old).account == nil)
        let attributed = Self.alert().attributed(to: Self.jane, distinguishingID: true)
        #expect(try decoder.decode(Alert.self, from: encoder.encode(attributed)) == attributed)
    }
}
