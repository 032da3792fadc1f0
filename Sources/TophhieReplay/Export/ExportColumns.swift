/// Log Analytics' sign-in columns (`SigninLogs`, `AADNonInteractiveUserSignInLogs`) and Graph
/// PowerShell's capitalised names, as Graph signIn paths: the one mapping every reader uses
/// (the README's table is this one).
///
/// A name not listed here is Graph's with its first letter lowered (`AppDisplayName` →
/// `appDisplayName`, and inside objects `DeviceId` → `deviceId`). Columns: Microsoft's
/// `SigninLogs` and `AADNonInteractiveUserSignInLogs` references (MicrosoftDocs/azure-reference-
/// other, `azure-monitor-ref/tables`, 2024); the Azure Monitor sign-in schema (entra-docs,
/// `reference-azure-monitor-sign-ins-log-schema.md`).
enum ExportColumns {
    /// Columns whose Graph name is not theirs with the first letter lowered.
    static let renamed: [String: String] = [
        "Id": "id",
        "IPAddress": "ipAddress",
        "LocationDetails": "location",
        "ConditionalAccessPolicies": "appliedConditionalAccessPolicies",
        "ResourceIdentity": "resourceId",
        "ProcessingTimeInMs": "processingTimeInMilliseconds",
        "RiskEventTypes_V2": "riskEventTypes_v2",
    ]

    /// Columns Log Analytics or Azure Monitor add that are no sign-in property. `ResourceId` is
    /// the Azure resource path there (`/tenants/…/providers/Microsoft.aadiam`), not Graph's
    /// resource id (`ResourceIdentity`); `Location` is the country alone (`LocationDetails` has it).
    static let dropped: Set<String> = [
        "TenantId", "AADTenantId", "SourceSystem", "TimeGenerated", "OperationName", "OperationVersion", "Category",
        "ResultSignature", "DurationMs", "Identity", "Level", "Type", "_BilledSize", "_IsBillable", "_ResourceId",
        "ResourceGroup", "ResourceProvider", "Resource", "ResourceId", "AdditionalProperties", "ResultType", "ResultDescription",
    ]

    /// Columns Log Analytics holds as JSON text (dynamic, or string columns that carry JSON).
    static let jsonText: Set<String> = [
        "Status", "DeviceDetail", "LocationDetails", "AuthenticationDetails", "ConditionalAccessPolicies", "NetworkLocationDetails",
        "MfaDetail", "AuthenticationProcessingDetails", "AuthenticationRequirementPolicies", "RiskEventTypes", "RiskEventTypes_V2",
        "SessionLifetimePolicies", "AuthenticationMethodsUsed", "AppliedEventListeners", "AuthenticationContextClassReferences",
        "SignInEventTypes", "TokenProtectionStatusDetails", "Agent",
    ]

    /// Columns that are booleans or whole numbers in Graph, written as text by exports.
    static let booleans: Set<String> = ["IsInteractive", "IsRisky", "FlaggedForReview", "IsTenantRestricted", "IsThroughGlobalSecureAccess", "isCompliant", "isManaged", "succeeded"]
    static let integers: Set<String> = ["AutonomousSystemNumber", "errorCode", "ProcessingTimeInMs"]

    /// How a value is read: JSON text parsed, a boolean or a whole number from text, or as it is.
    enum Reading: Sendable { case jsonText, boolean, integer, plain }

    /// What becomes of a column: dropped, or its Graph name (nil: its own with the first letter
    /// lowered) and how its value is read.
    struct Column: Sendable {
        let dropped: Bool
        let name: String?
        let reading: Reading
    }

    /// The tables above as one, so a column of a row is looked up once: five lookups a column
    /// (each hashing its name) were a fifth of reading JSON rows.
    static let columns: [String: Column] = {
        var columns: [String: Column] = [:]
        for name in Set(renamed.keys).union(dropped).union(jsonText).union(booleans).union(integers) {
            columns[name] = Column(dropped: dropped.contains(name), name: renamed[name], reading: reading(name))
        }
        return columns
    }()

    /// How a member inside a column's object is read (by its lowered name).
    static func reading(_ name: String) -> Reading {
        jsonText.contains(name) ? .jsonText : booleans.contains(name) ? .boolean : integers.contains(name) ? .integer : .plain
    }

    /// `reading` of the members inside objects that are not read as they are, one lookup each.
    static let memberReadings: [String: Reading] = Dictionary(uniqueKeysWithValues: booleans.map { ($0, .boolean) } + integers.map { ($0, .integer) })

    /// The lengths of `memberReadings`' names, one bit each: a name of another length is none of
    /// them, told without hashing it (most members inside objects are text).
    static let memberReadingLengths: UInt64 = memberReadings.keys.reduce(0) { $0 | 1 << min($1.utf8.count, 63) }

    /// `memberReadings[name]`, the name's length looked at first.
    static func memberReading(_ name: String) -> Reading? {
        memberReadingLengths & 1 << min(name.utf8.count, 63) == 0 ? nil : memberReadings[name]
    }

    /// The table that holds the non-interactive stream.
    static let nonInteractiveTables: Set<String> = ["AADNonInteractiveUserSignInLogs", "NonInteractiveUserSignInLogs"]

    /// Tables and categories that hold sign-ins (a file of another is named as what it is).
    static let signInTables: Set<String> = nonInteractiveTables.union([
        "SigninLogs", "SignInLogs", "AADServicePrincipalSignInLogs", "ServicePrincipalSignInLogs",
        "AADManagedIdentitySignInLogs", "ManagedIdentitySignInLogs",
    ])

    /// The Entra admin center's CSV download (Sign-in logs → Download → CSV): display names as
    /// the portal shows them, mapped to Graph signIn paths. Header names are compared with their
    /// spaces trimmed and runs of spaces made one (the download writes `Application ID ` and
    /// `Autonomous system  number`). Not mapped: the MFA result text, the token protection
    /// columns, the managed identity and federated token columns (no user sign-in property).
    static let adminCenter: [String: String] = [
        "Date (UTC)": "createdDateTime", "Request ID": "id", "User agent": "userAgent", "Correlation ID": "correlationId",
        "User ID": "userId", "User": "userDisplayName", "Username": "userPrincipalName", "User type": "userType",
        "Cross tenant access type": "crossTenantAccessType", "Incoming token type": "incomingTokenType",
        "Authentication Protocol": "authenticationProtocol", "Unique token identifier": "uniqueTokenIdentifier",
        "Original transfer method": "originalTransferMethod", "Client credential type": "clientCredentialType",
        "Application": "appDisplayName", "Application ID": "appId", "App owner tenant ID": "appOwnerTenantId",
        "Resource": "resourceDisplayName", "Resource ID": "resourceId", "Resource tenant ID": "resourceTenantId",
        "Resource owner tenant ID": "resourceOwnerTenantId", "Home tenant ID": "homeTenantId", "Home tenant name": "homeTenantName",
        "IP address": "ipAddress", "Sign-in error code": "status.errorCode", "Failure reason": "status.failureReason",
        "Client app": "clientAppUsed", "Device ID": "deviceDetail.deviceId", "Browser": "deviceDetail.browser",
        "Operating System": "deviceDetail.operatingSystem", "Compliant": "deviceDetail.isCompliant", "Managed": "deviceDetail.isManaged",
        "Join Type": "deviceDetail.trustType", "Multifactor authentication auth method": "mfaDetail.authMethod",
        "Multifactor authentication auth detail": "mfaDetail.authDetail", "Authentication requirement": "authenticationRequirement",
        "Sign-in identifier": "signInIdentifier", "Session ID": "sessionId", "IP address (seen by resource)": "ipAddressFromResourceProvider",
        "Through Global Secure Access": "isThroughGlobalSecureAccess", "Global Secure Access IP address": "globalSecureAccessIpAddress",
        "Autonomous system number": "autonomousSystemNumber", "Flagged for review": "flaggedForReview",
        "Token issuer type": "tokenIssuerType", "Token issuer name": "tokenIssuerName", "Latency": "processingTimeInMilliseconds",
        "Conditional Access": "conditionalAccessStatus",
    ]

    /// Admin center columns that show one of Graph's enumeration members as words
    /// (`Not Applied`, `Device code flow`, `Single-factor authentication`), with those members:
    /// msgraph-metadata `schemas/type-mappings/beta-enum-types.json` at f54f11b6 (`protocolType`,
    /// `originalTransferMethods`, `conditionalAccessStatus`, `signInAccessType`,
    /// `incomingTokenType`, `clientCredentialType`, `signInUserType`, `tokenIssuerType`;
    /// `authenticationRequirement` is text with these two values). The words are matched to a
    /// member ignoring case, spaces and hyphens; words that match none are kept as written.
    static let adminCenterEnumerations: [String: [String]] = [
        "conditionalAccessStatus": ["success", "failure", "notApplied"],
        "originalTransferMethod": ["none", "deviceCodeFlow", "authenticationTransfer"],
        "authenticationProtocol": [
            "none", "oAuth2", "ropc", "wsFederation", "saml20", "deviceCode", "authenticationTransfer", "nativeAuth",
            "implicitAccessTokenAndGetResponseMode", "implicitIdTokenAndGetResponseMode", "implicitAccessTokenAndPostResponseMode",
            "implicitIdTokenAndPostResponseMode", "authorizationCodeWithoutPkce", "authorizationCodeWithPkce", "clientCredentials",
            "refreshTokenGrant", "encryptedAuthorizeResponse", "directUserGrant", "kerberos", "prtGrant", "seamlessSso",
            "prtBrokerBased", "prtNonBrokerBased", "onBehalfOf", "samlOnBehalfOf", "officeS2S", "wsTrust",
        ],
        "authenticationRequirement": ["singleFactorAuthentication", "multiFactorAuthentication"],
        "crossTenantAccessType": ["none", "b2bCollaboration", "b2bDirectConnect", "microsoftSupport", "serviceProvider", "passthrough"],
        "incomingTokenType": ["none", "primaryRefreshToken", "saml11", "saml20", "remoteDesktopToken", "refreshToken"],
        "clientCredentialType": ["none", "clientSecret", "clientAssertion", "federatedIdentityCredential", "managedIdentity", "certificate"],
        "userType": ["member", "guest"],
        "tokenIssuerType": ["AzureAD", "ADFederationServices", "ADFederationServicesMFAAdapter", "AzureADBackupAuth", "NPSExtension"],
    ]

    /// Admin center columns that are booleans (`True`/`False`, or `Yes`/`No`) or whole numbers.
    static let adminCenterBooleans: Set<String> = ["deviceDetail.isCompliant", "deviceDetail.isManaged", "isThroughGlobalSecureAccess", "flaggedForReview"]
    static let adminCenterIntegers: Set<String> = ["status.errorCode", "autonomousSystemNumber", "processingTimeInMilliseconds"]
}
