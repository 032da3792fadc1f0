import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules

@Suite(.timeLimit(.minutes(20))) struct ValueMatchingTests {
    static let event = try! SignIn.event(#"""
    {"id":"e1","createdDateTime":"2024-05-01T10:00:00Z","userPrincipalName":"Ada@Contoso.com",
     "userDisplayName":"ada@contoso.com","appDisplayName":"Microsoft Office 365 Portal",
     "ipAddress":"203.0.113.9","clientAppUsed":"Exchange ActiveSync","path":"C:\\Windows\\*star",
     "status":{"errorCode":50126,"failureReason":"Invalid username or password.","additionalDetails":"MFA denied; user declined"},
     "deviceDetail":{"isCompliant":false,"deviceId":"","trustType":null,"browser":"Edge 120.0"},
     "location":{"countryOrRegion":"PT","geoCoordinates":{"latitude":38.72}},
     "riskEventTypes_v2":["unlikelyTravel","anonymizedIPAddress"],"v6":"2001:db8::17","networkLocationDetails":[],
     "multi":"first line\nsecond line","score":"42"}
    """#)

    struct Case: CustomTestStringConvertible, Sendable {
        var field: String
        var modifiers: [String]
        var values: [RuleValue]
        var expected: Bool
        var testDescription: String { "\(([field] + modifiers).joined(separator: "|")): \(values) → \(expected)" }
    }

    static func c(_ key: String, _ values: [RuleValue], _ expected: Bool) -> Case {
        let parts = key.split(separator: "|").map(String.init)
        return Case(field: parts[0], modifiers: Array(parts.dropFirst()), values: values, expected: expected)
    }

    static let cases: [Case] = [
        // plain equality is case-insensitive and whole-value
        c("appDisplayName", [.string("microsoft office 365 portal")], true),
        c("appDisplayName", [.string("Office 365")], false),
        // wildcards
        c("appDisplayName", [.string("*office*")], true),
        c("appDisplayName", [.string("Microsoft*")], true),
        c("appDisplayName", [.string("*Portal")], true),
        c("appDisplayName", [.string("Microsoft ?ffice 365 Portal")], true),
        c("appDisplayName", [.string("Microsoft ??ffice*")], false),
        c("appDisplayName", [.string("M*o*3*l")], true),
        c("appDisplayName", [.string("M*x*l")], false),
        // escapes: \* and \? literal, \\ one backslash, lone backslash literal
        c("path", [.string(#"C:\Windows\\\*star"#)], true),
        c("path", [.string(#"C:\Windows\*"#)], false),
        c("path", [.string(#"C:\\Windows\\*"#)], true),
        c("path", [.string(#"*\*star"#)], true),
        c("appDisplayName", [.string(#"Microsoft Office 365 Portal\?"#)], false),
        // lists are OR, `all` makes them AND
        c("clientAppUsed", [.string("IMAP4"), .string("Exchange ActiveSync")], true),
        c("appDisplayName|contains|all", [.string("office"), .string("portal")], true),
        c("appDisplayName|contains|all", [.string("office"), .string("teams")], false),
        c("appDisplayName|contains", [.string("office"), .string("teams")], true),
        // contains / startswith / endswith keep inner wildcards
        c("appDisplayName|contains", [.string("OFFICE 365")], true),
        c("appDisplayName|startswith", [.string("microsoft o")], true),
        c("appDisplayName|startswith", [.string("office")], false),
        c("appDisplayName|endswith", [.string("portal")], true),
        c("appDisplayName|contains", [.string("of?ice")], true),
        // cased
        c("appDisplayName|cased", [.string("microsoft office 365 portal")], false),
        c("appDisplayName|cased", [.string("Microsoft Office 365 Portal")], true),
        c("appDisplayName|contains|cased", [.string("Office")], true),
        c("appDisplayName|contains|cased", [.string("office")], false),
        // numbers match numbers and numeric strings
        c("status.errorCode", [.int(50126)], true),
        c("status.errorCode", [.string("50126")], true),
        c("status.errorCode", [.int(50053)], false),
        c("score", [.int(42)], true),
        c("status.errorCode|startswith", [.string("501")], true),
        // booleans match 'true'/'false'
        c("deviceDetail.isCompliant", [.string("false")], true),
        c("deviceDetail.isCompliant", [.bool(false)], true),
        c("deviceDetail.isCompliant", [.string("true")], false),
        // null: absent or JSON null; '' is the empty string only
        c("deviceDetail.trustType", [.null], true),
        c("deviceDetail.missing", [.null], true),
        c("deviceDetail.deviceId", [.null], false),
        c("deviceDetail.deviceId", [.string("")], true),
        c("deviceDetail.trustType", [.string("")], false),
        c("deviceDetail.missing", [.string("")], false),
        // exists: presence only, a JSON null absent (as pySigma's backends and Sentinel read it)
        c("deviceDetail.trustType|exists", [.bool(true)], false),
        c("deviceDetail.trustType|exists", [.bool(false)], true),
        c("deviceDetail.deviceId|exists", [.bool(true)], true),
        c("deviceDetail.missing|exists", [.bool(true)], false),
        c("deviceDetail.missing|exists", [.bool(false)], true),
        // re: case-sensitive search; i, m, s flags
        c("appDisplayName|re", [.string("Office [0-9]+")], true),
        c("appDisplayName|re", [.string("office [0-9]+")], false),
        c("appDisplayName|re|i", [.string("office [0-9]+")], true),
        c("appDisplayName|re", [.string("^Office")], false),
        c("multi|re", [.string("^second")], false),
        c("multi|re|m", [.string("^second")], true),
        c("multi|re", [.string("line.second")], false),
        c("multi|re|s", [.string("line.second")], true),
        // cidr, IPv4 and IPv6
        c("ipAddress|cidr", [.string("203.0.113.0/24")], true),
        c("ipAddress|cidr", [.string("203.0.112.0/24")], false),
        c("ipAddress|cidr", [.string("10.0.0.0/8"), .string("203.0.0.0/8")], true),
        c("ipAddress|cidr", [.string("0.0.0.0/0")], true),
        c("v6|cidr", [.string("2001:db8::/32")], true),
        c("v6|cidr", [.string("2001:db9::/32")], false),
        c("ipAddress|cidr", [.string("2001:db8::/32")], false),
        // numeric comparisons, numeric strings included
        c("status.errorCode|gt", [.int(50000)], true),
        c("status.errorCode|gte", [.int(50126)], true),
        c("status.errorCode|lt", [.int(50126)], false),
        c("status.errorCode|lte", [.int(50126)], true),
        c("score|gt", [.double(41.5)], true),
        c("appDisplayName|gt", [.int(1)], false),
        // arrays match any element
        c("riskEventTypes_v2", [.string("unlikelyTravel")], true),
        c("riskEventTypes_v2", [.string("leakedCredentials")], false),
        // an empty array is its JSON text, as Sentinel and pySigma's flattened table see it
        // (SigmaHQ's unknown-devices rule tests `NetworkLocationDetails: '[]'`)
        c("networkLocationDetails", [.string("[]")], true),
        c("riskEventTypes_v2", [.string("[]")], false),
        c("networkLocationDetails|contains", [.string("Office")], false),
        // objects match on their JSON text (Sentinel's `Status has …`)
        c("status|contains", [.string("MFA denied")], true),
        // fieldref compares two fields
        c("userPrincipalName|fieldref", [.string("userDisplayName")], true),
        c("userPrincipalName|fieldref|cased", [.string("userDisplayName")], false),
        c("userPrincipalName|fieldref", [.string("appDisplayName")], false),
        c("appDisplayName|fieldref|contains", [.string("clientAppUsed")], false),
        c("userPrincipalName|fieldref|startswith", [.string("userDisplayName")], true),
        // neq: the field exists and differs from every value
        c("location.countryOrRegion|neq", [.string("PT")], false),
        c("location.countryOrRegion|neq", [.string("ES"), .string("FR")], true),
        c("deviceDetail.missing|neq", [.string("x")], false),
    ]

    @Test(arguments: cases)
    func matching(_ testCase: Case) throws {
        let condition = try FieldCondition(sourceField: testCase.field, path: testCase.field, modifiers: testCase.modifiers,
                                           values: testCase.values, isList: testCase.values.count > 1)
        #expect(condition.matches(ValueMatchingTests.event) == testCase.expected)
    }

    @Test(arguments: [
        ("contains|startswith", [RuleValue.string("x")], "cannot be combined"),
        ("re|cidr", [.string("x")], "cannot be combined"),
        ("i", [.string("x")], "needs it"),
        ("all", [.string("x")], "needs a list"),
        ("base64", [.string("x")], "not supported"),
        ("bogus", [.string("x")], "unknown modifier"),
        ("gt", [.string("many")], "takes a number"),
        ("cidr", [.string("10.0.0.0/33")], "prefix length"),
        ("cidr", [.string("not-an-ip")], "not a CIDR"),
        ("re", [.string("(unclosed")], "does not compile"),
        ("exists", [.string("yes")], "true or false"),
        ("contains|contains", [.string("x")], "given twice"),
    ])
    func invalidModifiers(_ modifiers: String, _ values: [RuleValue], _ fragment: String) {
        do {
            _ = try FieldCondition(sourceField: "f", path: "f", modifiers: modifiers.split(separator: "|").map(String.init), values: values, isList: false)
            Issue.record("\(modifiers) should be rejected")
        } catch let error as RuleCompileError {
            #expect(error.message.contains(fragment), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func wildcardPatternsNeverBacktrackExponentially() {
        let pattern = WildcardPattern(sigma: String(repeating: "*a", count: 30) + "b")
        #expect(!pattern.matches(String(repeating: "a", count: 5000)))
    }

    /// Exact, prefix, suffix and contains patterns compare bytes; each answer must be the one
    /// the general scalar matcher gives for the same pattern.
    @Test func shapedPatternsAnswerAsTheGeneralMatcher() {
        let texts = ["", "a", "ab", "abc", "aab", "abab", "caf\u{E9}", "cafe\u{301}", "\u{301}", "mfa denied", "x mfa denied y", "MFA"]
        var patterns: [WildcardPattern] = []
        for text in texts {
            for form in ["\(text)", "\(text)*", "*\(text)", "*\(text)*"] { patterns.append(WildcardPattern(sigma: form, caseSensitive: true)) }
        }
        var shaped = 0
        for pattern in patterns {
            if case .general = pattern.shape { continue }
            shaped += 1
            // Candidates the search must step past: a first byte repeated, a match at the very
            // end, overlapping starts.
            for subject in texts + ["abcabc", "xabc", "abcx", "the mfa denied", "caf\u{E9}s", "cafe\u{301}s", "aaab", "aaaab", "ababab", "abaab", "ba", "bbbb"] {
                #expect(pattern.matches(folded: subject) == pattern.generalMatch(Array(subject.unicodeScalars)), "\(pattern.shape) against '\(subject)'")
            }
        }
        #expect(shaped >= 30)
    }

    @Test func fieldNamesMapFromSigmaToGraph() {
        #expect(SignInFieldCatalog.resolve("ResultType").path == "status.errorCode")
        #expect(SignInFieldCatalog.resolve("Resultdescription").path == "status.failureReason")
        #expect(SignInFieldCatalog.resolve("DeviceDetail.trusttype").path == "deviceDetail.trustType")
        #expect(SignInFieldCatalog.resolve("DeviceDetail.isCompliant").path == "deviceDetail.isCompliant")
        #expect(SignInFieldCatalog.resolve("IPAddress").path == "ipAddress")
        #expect(SignInFieldCatalog.resolve("AppDisplayName").warning == nil)
        #expect(SignInFieldCatalog.resolve("AuthenticationRequirement").warning == nil)
        #expect(SignInFieldCatalog.resolve("AuthenticationRequirement", schema: .v1).warning?.contains("beta") == true)
        #expect(SignInFieldCatalog.resolve("ActivityDetails").warning?.contains("does not exist") == true)
        #expect(SignInFieldCatalog.resolve("status.errorCode").warning == nil)
    }

    @Test func stableHashMatchesPublishedFNV1a128Vectors() {
        #expect(StableHash.fnv1a128("") == "6c62272e07bb014262b821756295c58d")
        #expect(StableHash.fnv1a128("a") == "d228cb696f1a8caf78912b704e4a8964")
        #expect(StableHash.fnv1a128("foobar") == "343e1662793c64bf6f0d3597ba446f18")
        // Longer than a small string, read through the string's buffer (the value from the FNV
        // reference algorithm); bytes that are not contiguous, one by one.
        #expect(StableHash.fnv1a128("The quick brown fox jumps over the lazy dog") == "68cce4cd885ea04239f02af30e297870")
        #expect(StableHash.fnv1a128(bytes: "foobar".utf8.lazy.map { $0 }) == "343e1662793c64bf6f0d3597ba446f18")
    }

    /// An alert's id is the hash of its canonical text, hashed piece by piece: the group's
    /// values lowered as `lowercased()` lowers them (ASCII and not: "İ" lowers to two scalars),
    /// the event ids sorted, whether given as ids or as the alert's events.
    @Test func anAlertIDIsTheHashOfItsCanonicalText() {
        let groups: [[AlertGroupValue]] = [
            [], [AlertGroupValue(field: "userId", value: "U-1@Contoso.COM")],
            [AlertGroupValue(field: "userId", value: "jane"), AlertGroupValue(field: "location.city", value: "İSTANBUL Ärhus")],
            [AlertGroupValue(field: "ipAddress", value: "")],
        ]
        let idLists = [[], ["b"], ["e2", "e10", "E1", "a"], ["ﬀ", "z", "é"]]
        for group in groups {
            for ids in idLists {
                var canonical = "tophhie-alert/v1\nrule-é\n"
                for value in group { canonical += "\(value.field)=\(value.value.lowercased())\n" }
                canonical += ids.sorted().joined(separator: ",")
                #expect(AlertFactory.alertID(ruleID: "rule-é", group: group, eventIDs: ids) == StableHash.fnv1a128(canonical))
                // From the alert's events: one event's id hashed without an array of it.
                guard !ids.isEmpty else { continue }
                let events = ids.map { AlertEvent(id: $0, time: Date(timeIntervalSince1970: 0), errorCode: nil, app: nil, ipAddress: nil, location: nil, device: nil) }
                #expect(AlertFactory.alertID(ruleID: "rule-é", group: group, events: events) == StableHash.fnv1a128(canonical))
            }
        }
        var state = StableHash.State()
        state.addLowered("AZaz@[`{")
        #expect(state.digest == StableHash.fnv1a128("azaz@[`{"))
    }

    /// A single-event alert's summary: its parts joined by one space, each part there even when
    /// empty, "matched" with none.
    @Test func aSingleSummaryJoinsThePartsThereAre() {
        func joined(_ event: AlertEvent) -> String {
            var parts: [String] = []
            if let code = event.errorCode { parts.append("error \(code)") }
            if let app = event.app { parts.append(app) }
            if let ip = event.ipAddress { parts.append("from \(ip)") }
            if let location = event.location { parts.append("(\(location))") }
            return parts.isEmpty ? "matched" : parts.joined(separator: " ")
        }
        let time = Date(timeIntervalSince1970: 0)
        for code in [nil, 0, -50126] as [Int64?] {
            for app in [nil, "", "Outlook"] as [String?] {
                for ip in [nil, "", "203.0.113.9"] as [String?] {
                    for location in [nil, "", "Porto, PT"] as [String?] {
                        let event = AlertEvent(id: "e", time: time, errorCode: code, app: app, ipAddress: ip, location: location, device: nil)
                        #expect(AlertFactory.singleSummary(event) == joined(event))
                    }
                }
            }
        }
        #expect(AlertFactory.singleSummary(AlertEvent(id: "e", time: time, errorCode: 50126, app: "Outlook", ipAddress: "203.0.113.9", location: "Porto, PT", device: nil))
                == "error 50126 Outlook from 203.0.113.9 (Porto, PT)")
    }

    /// A digest is both words as 16 lower-case hex digits each, zeros kept in front.
    @Test func aDigestIsBothWordsInFullHex() {
        var state = StableHash.State()
        for (high, low, digest) in [(0, 0, "00000000000000000000000000000000"), (1, 0xF, "0000000000000001000000000000000f"),
                                    (UInt64.max, 0x0123_4567_89AB_CDEF, "ffffffffffffffff0123456789abcdef"),
                                    (0x0A00_0000_0000_0000, 0x10, "0a000000000000000000000000000010")] as [(UInt64, UInt64, String)] {
            state.high = high
            state.low = low
            #expect(state.digest == digest)
        }
    }


}
