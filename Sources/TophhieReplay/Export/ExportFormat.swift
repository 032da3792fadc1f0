import Foundation

/// The shapes a sign-in file comes in, told apart by its content (`--input` forces one).
public enum ExportFormat: String, Sendable, CaseIterable {
    /// Graph's own records: a page `{"value":[…]}`, an array, JSON lines, a poll timeline; the
    /// Entra admin center's JSON download and Microsoft-Extractor-Suite's output are this shape.
    case graph
    /// Azure Monitor diagnostic records (a storage archive or an event hub's body):
    /// `{"records":[{"time","category":"SignInLogs","properties":{…}}]}`, or such records as an
    /// array or JSON lines. `properties` is the Graph record.
    case azureMonitor = "azure-monitor"
    /// A Log Analytics / Sentinel query result over `SigninLogs` or
    /// `AADNonInteractiveUserSignInLogs` as JSON (an array or JSON lines of rows); also Graph
    /// PowerShell's `Get-MgAuditLogSignIn | ConvertTo-Json`, whose names are capitalised the same way.
    case logAnalytics = "log-analytics"
    /// The same rows as CSV (Log Analytics' export; dynamic columns as JSON text).
    case csv
    /// The Entra admin center's CSV download (Sign-in logs → Download → CSV): the portal's
    /// column names (`Date (UTC)`, `Request ID`, `Sign-in error code`, …), one stream per file.
    case adminCenterCSV = "admin-center-csv"

    /// What the content looks like, from its first bytes (a BOM skipped).
    /// - Returns: nil when it is none of them.
    public static func detect(_ head: Data) -> ExportFormat? {
        let body = head.starts(with: [0xEF, 0xBB, 0xBF]) ? head.dropFirst(3) : head[...]
        guard let first = body.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) else { return nil }
        let text = String(decoding: body.prefix(1 << 16), as: UTF8.self)
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            if text.range(of: #"^\s*\{\s*"records"\s*:"#, options: .regularExpression) != nil { return .azureMonitor }
            if text.contains("\"properties\"") && (text.contains("\"category\"") || text.contains("\"operationName\"")) { return .azureMonitor }
            // Log Analytics and PowerShell capitalise every name; Graph writes camelCase.
            if text.contains("\"TimeGenerated\"") || text.contains("\"CreatedDateTime\"") { return .logAnalytics }
            // Sentinel rows without TimeGenerated: `Id` beside another of the table's names
            // (Graph's own records say `id`).
            if text.contains("\"Id\""), sentinelNames.contains(where: { text.contains("\"\($0)\"") }) { return .logAnalytics }
            return .graph
        }
        let firstLine = text.prefix { $0 != "\n" && $0 != "\r" }
        if firstLine.contains("Date (UTC)") && firstLine.contains("Request ID") { return .adminCenterCSV }
        if firstLine.contains(",") && (firstLine.contains("TimeGenerated") || firstLine.contains("CreatedDateTime") || firstLine.contains("Id")) { return .csv }
        return nil
    }

    /// The names beside `Id` that make a row Sentinel's (or PowerShell's) rather than Graph's.
    static let sentinelNames = ["ResultType", "UserPrincipalName", "AppDisplayName", "CreatedDateTime", "TimeGenerated"]

    /// What each format is, for a message listing the ones tried.
    public static let described = "Graph JSON (a page, an array, JSON lines, a poll timeline), Azure Monitor diagnostic records ({\"records\":[…]}), Log Analytics or Graph PowerShell JSON (TimeGenerated/CreatedDateTime rows), Log Analytics CSV, the Entra admin center's CSV download (Date (UTC), Request ID, … columns)"
}
