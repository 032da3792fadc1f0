/// Which Graph version's `signIn` a rule set is checked against (`graph.api`).
package enum SignInSchema: String, Sendable, CaseIterable {
    case beta
    case v1 = "v1.0"
}

/// The Graph `signIn` fields of both versions, and how Sigma's Azure sign-in names map onto them.
///
/// SigmaHQ's `azure/signinlogs` rules use Log Analytics column names (`ResultType`,
/// `DeviceDetail.isCompliant`); the agent reads Graph JSON (`status.errorCode`,
/// `deviceDetail.isCompliant`). A beta property is used as it is; it warns only when the rules
/// are checked against v1.0, whose events never carry it.
package enum SignInFieldCatalog {
    /// How a rule's field name was understood.
    package struct Resolution: Sendable, Hashable {
        public var path: String
        /// Why the field may never match live v1.0 data, when it may not.
        public var warning: String?
        /// The field is in neither version's signIn: a value test on it can never hold.
        public var unknown = false
    }

    /// The documented v1.0 signIn properties, nested ones as dotted paths.
    public static let v1Paths: Set<String> = [
        "id", "createdDateTime", "userId", "userPrincipalName", "userDisplayName", "appId", "appDisplayName",
        "ipAddress", "clientAppUsed", "correlationId", "conditionalAccessStatus", "appliedConditionalAccessPolicies",
        // Each policy's fields: a condition on one holds when any policy's value satisfies it.
        "appliedConditionalAccessPolicies.id", "appliedConditionalAccessPolicies.displayName",
        "appliedConditionalAccessPolicies.enforcedGrantControls", "appliedConditionalAccessPolicies.enforcedSessionControls",
        "appliedConditionalAccessPolicies.result",
        "isInteractive", "deviceDetail", "deviceDetail.deviceId", "deviceDetail.displayName",
        "deviceDetail.operatingSystem", "deviceDetail.browser", "deviceDetail.isCompliant", "deviceDetail.isManaged",
        "deviceDetail.trustType", "location", "location.city", "location.state", "location.countryOrRegion",
        "location.geoCoordinates", "location.geoCoordinates.altitude", "location.geoCoordinates.latitude",
        "location.geoCoordinates.longitude", "resourceDisplayName", "resourceId", "resourceTenantId", "homeTenantId",
        "authenticationAppDeviceDetails", "authenticationAppDeviceDetails.appVersion",
        "authenticationAppDeviceDetails.clientApp", "authenticationAppDeviceDetails.deviceId",
        "authenticationAppDeviceDetails.operatingSystem", "servicePrincipalId", "servicePrincipalName",
        "riskDetail", "riskEventTypes", "riskEventTypes_v2", "riskLevelAggregated", "riskLevelDuringSignIn",
        "riskState", "status", "status.errorCode", "status.failureReason", "status.additionalDetails",
        "userAgent",
    ]

    /// Whether `path` is a beta signIn property, or lies inside one (paths deeper than the
    /// catalogue's three segments).
    static func isBeta(_ path: String) -> Bool {
        if BetaSignInFields.paths.contains(path) { return true }
        let parts = path.split(separator: ".")
        return parts.count > 3 && BetaSignInFields.paths.contains(parts.prefix(3).joined(separator: "."))
    }

    /// Sigma / Sentinel names (lower-cased) to Graph paths. Nested `DeviceDetail.x` and
    /// `LocationDetails.x` are handled by prefix.
    static let aliases: [String: String] = [
        "resulttype": "status.errorCode",
        "resultdescription": "status.failureReason",
        "status": "status",
        "appdisplayname": "appDisplayName",
        "application": "appDisplayName",
        "appid": "appId",
        "ipaddress": "ipAddress",
        "calleripaddress": "ipAddress",
        "src_ip": "ipAddress",
        "clientapp": "clientAppUsed",
        "clientappused": "clientAppUsed",
        "username": "userPrincipalName",
        "userprincipalname": "userPrincipalName",
        "user": "userPrincipalName",
        "targetusername": "userPrincipalName",
        "userdisplayname": "userDisplayName",
        "userid": "userId",
        "resourcedisplayname": "resourceDisplayName",
        "resourceid": "resourceId",
        "resourceidentity": "resourceId",
        "conditionalaccessstatus": "conditionalAccessStatus",
        "conditionalaccesspolicies": "appliedConditionalAccessPolicies",
        "riskstate": "riskState",
        "risklevelaggregated": "riskLevelAggregated",
        "risklevelduringsignin": "riskLevelDuringSignIn",
        "riskdetail": "riskDetail",
        "riskeventtypes": "riskEventTypes",
        "riskeventtypes_v2": "riskEventTypes_v2",
        "location": "location.countryOrRegion",
        "isinteractive": "isInteractive",
        "correlationid": "correlationId",
        "hometenantid": "homeTenantId",
        "resourcetenantid": "resourceTenantId",
        "serviceprincipalid": "servicePrincipalId",
        "serviceprincipalname": "servicePrincipalName",
        "authenticationrequirement": "authenticationRequirement",
        "authenticationdetails": "authenticationDetails",
        "authenticationmethodsused": "authenticationMethodsUsed",
        "authenticationmethod": "authenticationMethodsUsed",
        "authenticationprotocol": "authenticationProtocol",
        "networklocationdetails": "networkLocationDetails",
        "useragent": "userAgent",
        "mfadetail": "mfaDetail",
        "tokenissuertype": "tokenIssuerType",
        "incomingtokentype": "incomingTokenType",
        "crosstenantaccesstype": "crossTenantAccessType",
        "autonomoussystemnumber": "autonomousSystemNumber",
    ]

    /// Maps a rule's field name to a Graph path and says whether `schema`'s data can ever carry it.
    ///
    /// Exact Graph paths pass through; Sigma names map case-insensitively; anything else is kept
    /// as written with a warning that the signIn resource has no such field.
    public static func resolve(_ name: String, schema: SignInSchema = .beta) -> Resolution {
        if v1Paths.contains(name) { return Resolution(path: name, warning: nil) }
        let lower = name.lowercased()
        var path: String?
        if let alias = aliases[lower] {
            path = alias
        } else if let caseFixed = v1Paths.first(where: { $0.lowercased() == lower }) {
            path = caseFixed
        } else if lower.hasPrefix("devicedetail.") || lower.hasPrefix("locationdetails.") || lower.hasPrefix("location.") || lower.hasPrefix("status.") {
            let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            let head = lower.hasPrefix("devicedetail.") ? "deviceDetail" : lower.hasPrefix("status.") ? "status" : "location"
            let tail = parts.count > 1 ? parts[1] : ""
            let candidate = head + "." + tail
            path = v1Paths.first(where: { $0.lowercased() == candidate.lowercased() }) ?? candidate
        } else if let beta = BetaSignInFields.paths.first(where: { $0.lowercased() == lower }) {
            path = beta
        }
        let resolved = path ?? name
        if v1Paths.contains(resolved) {
            if lower == "status" {
                return Resolution(path: resolved, warning: "'\(name)' maps to Graph's 'status' object {errorCode, failureReason, additionalDetails}; values such as 'Success' never appear in it (use 'status.errorCode: 0' for a success)")
            }
            return Resolution(path: resolved, warning: nil)
        }
        if isBeta(resolved) {
            guard schema == .v1 else { return Resolution(path: resolved, warning: nil) }
            return Resolution(path: resolved, warning: "field '\(name)' (Graph '\(resolved)') exists only in the Graph beta signIn, and graph.api is v1.0: live events never carry it, so this selection cannot match them")
        }
        return Resolution(path: resolved, warning: "field '\(name)' does not exist in the Graph signIn resource (beta or v1.0); a value test on it never matches Graph sign-ins", unknown: true)
    }

    /// The signIn path a misspelt field name was meant to be (`deviceDetail.operatingSystm` is
    /// `deviceDetail.operatingSystem`), from either version's properties.
    public static func nearestPath(to name: String) -> String? {
        NearestName.nearest(name, among: Array(v1Paths) + BetaSignInFields.paths)
    }
}
