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
        let bytes = [UInt8](body.prefix(1 << 16))
        // Names looked for in the bytes: Foundation's search of the head as text, a regular
        // expression and six searches, cost 20 ms a file, a third of replaying 5,000 sign-ins.
        func holds(_ name: String) -> Bool { Self.holds(Array(name.utf8), in: bytes) }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            if Self.opensWithRecords(bytes) { return .azureMonitor }
            if holds("\"properties\"") && (holds("\"category\"") || holds("\"operationName\"")) { return .azureMonitor }
            // Log Analytics and PowerShell capitalise every name; Graph writes camelCase.
            if holds("\"TimeGenerated\"") || holds("\"CreatedDateTime\"") { return .logAnalytics }
            // Sentinel rows without TimeGenerated: `Id` beside another of the table's names
            // (Graph's own records say `id`).
            if holds("\"Id\""), sentinelNames.contains(where: { holds("\"\($0)\"") }) { return .logAnalytics }
            return .graph
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let firstLine = text.prefix { $0 != "\n" && $0 != "\r" }
        if firstLine.contains("Date (UTC)") && firstLine.contains("Request ID") { return .adminCenterCSV }
        if firstLine.contains(",") && (firstLine.contains("TimeGenerated") || firstLine.contains("CreatedDateTime") || firstLine.contains("Id")) { return .csv }
        return nil
    }

    /// Whether `bytes` holds `needle` (not empty) anywhere.
    static func holds(_ needle: [UInt8], in bytes: [UInt8]) -> Bool {
        guard let lead = needle.first, needle.count <= bytes.count else { return false }
        var start = 0
        while let at = bytes[start...].firstIndex(of: lead) {
            guard at + needle.count <= bytes.count else { return false }
            if bytes[at..<at + needle.count].elementsEqual(needle) { return true }
            start = at + 1
        }
        return false
    }

    /// Whether the bytes open as `{"records":` does, with any JSON whitespace between.
    static func opensWithRecords(_ bytes: [UInt8]) -> Bool {
        var index = 0
        func skipSpaces() { while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 } }
        func take(_ text: String) -> Bool {
            let wanted = Array(text.utf8)
            guard index + wanted.count <= bytes.count, bytes[index..<index + wanted.count].elementsEqual(wanted) else { return false }
            index += wanted.count
            return true
        }
        skipSpaces()
        guard take("{") else { return false }
        skipSpaces()
        guard take("\"records\"") else { return false }
        skipSpaces()
        return take(":")
    }

    /// The names beside `Id` that make a row Sentinel's (or PowerShell's) rather than Graph's.
    static let sentinelNames = ["ResultType", "UserPrincipalName", "AppDisplayName", "CreatedDateTime", "TimeGenerated"]

    /// What each format is, for a message listing the ones tried.
    public static let described = "Graph JSON (a page, an array, JSON lines, a poll timeline), Azure Monitor diagnostic records ({\"records\":[…]}), Log Analytics or Graph PowerShell JSON (TimeGenerated/CreatedDateTime rows), Log Analytics CSV, the Entra admin center's CSV download (Date (UTC), Request ID, … columns)"
}
