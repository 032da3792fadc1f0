import Foundation
import TophhieJSON

/// What the two Graph versions serve of one stored sign-in.
///
/// The simulator keeps sign-ins in beta's shape (a superset); v1.0 serves the 29 properties of
/// its `signIn` entity (msgraph-metadata `schemas/v1.0-Prod.csdl`, listed in the project's
/// `reference/graph-v1-properties.md`) and the inherited `id`, so a rule or client that relies
/// on a beta field meets its absence as it would against Microsoft's v1.0.
enum GraphSignInProperties {
    static let v1: Set<String> = [
        "id", "appDisplayName", "appId", "appliedConditionalAccessPolicies", "authenticationAppDeviceDetails", "clientAppUsed",
        "conditionalAccessStatus", "correlationId", "createdDateTime", "deviceDetail", "homeTenantId", "ipAddress",
        "isInteractive", "location", "resourceDisplayName", "resourceId", "resourceTenantId", "riskDetail", "riskEventTypes",
        "riskEventTypes_v2", "riskLevelAggregated", "riskLevelDuringSignIn", "riskState", "servicePrincipalId",
        "servicePrincipalName", "status", "userAgent", "userDisplayName", "userId", "userPrincipalName",
    ]

    /// The event with only v1.0's top-level properties.
    static func v1Shape(of event: JSONValue) -> JSONValue {
        guard case .object(let members) = event else { return event }
        return .object(members.filter { v1.contains($0.key) })
    }

    /// `signInEventTypes` as listed, or `interactiveUser` / `nonInteractiveUser` from
    /// `isInteractive` for an event that does not list them (v1.0-shaped scenarios).
    static func eventTypes(of event: JSONValue) -> Set<String> {
        if case .array(let items)? = event["signInEventTypes"] {
            let names = Set(items.compactMap(\.stringValue))
            if !names.isEmpty { return names }
        }
        return [event["isInteractive"]?.boolValue == false ? "nonInteractiveUser" : "interactiveUser"]
    }
}
