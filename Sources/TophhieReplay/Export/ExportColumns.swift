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

    /// The table that holds the non-interactive stream.
    static let nonInteractiveTables: Set<String> = ["AADNonInteractiveUserSignInLogs", "NonInteractiveUserSignInLogs"]
}
