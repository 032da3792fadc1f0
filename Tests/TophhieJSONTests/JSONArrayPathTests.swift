import Foundation
import Testing
@testable import TophhieJSON

/// A path that meets an array of objects reaches into every element: the values found there
/// as one array (arrays among them flattened), or nothing when no element has one.
@Suite struct JSONArrayPathTests {
    static let signIn = try! JSONValue.parse(Data("""
    {"appliedConditionalAccessPolicies": [
        {"id": "p1", "displayName": "Require MFA", "result": "success", "enforcedGrantControls": ["Mfa"]},
        {"id": "p2", "displayName": "Block legacy", "result": "failure", "enforcedGrantControls": ["Block", "Mfa"]},
        {"id": "p3", "displayName": "Report only"}],
     "authenticationDetails": [],
     "riskEventTypes_v2": ["unfamiliarFeatures", "anonymizedIPAddress"],
     "networkLocationDetails": [{"networkType": "namedNetwork", "networkNames": ["Home", "VPN"]}, {"networkType": "trustedNamedLocation", "networkNames": ["Office"]}]}
    """.utf8))

    @Test func aFieldOfAnArrayOfObjectsIsEveryElementsValue() {
        #expect(Self.signIn.value(atPath: "appliedConditionalAccessPolicies.result") == .array([.string("success"), .string("failure")]))
        #expect(Self.signIn.value(atPath: "appliedConditionalAccessPolicies.id") == .array([.string("p1"), .string("p2"), .string("p3")]))
    }

    @Test func arraysFoundInTheElementsAreFlattened() {
        #expect(Self.signIn.value(atPath: "appliedConditionalAccessPolicies.enforcedGrantControls") == .array([.string("Mfa"), .string("Block"), .string("Mfa")]))
        #expect(Self.signIn.value(atPath: "networkLocationDetails.networkNames") == .array([.string("Home"), .string("VPN"), .string("Office")]))
    }

    @Test func noElementWithTheFieldIsAbsent() {
        #expect(Self.signIn.value(atPath: "appliedConditionalAccessPolicies.nothing") == nil)
        #expect(Self.signIn.value(atPath: "authenticationDetails.authenticationStepResultDetail") == nil)
        #expect(Self.signIn.value(atPath: "riskEventTypes_v2.name") == nil)
    }

    @Test func aNumberStillIndexesTheArray() {
        #expect(Self.signIn.value(atPath: "appliedConditionalAccessPolicies.1.result") == .string("failure"))
        #expect(Self.signIn.value(atPath: "riskEventTypes_v2.0") == .string("unfamiliarFeatures"))
        #expect(Self.signIn.value(atPath: "riskEventTypes_v2.5") == nil)
    }
}
