import Foundation
import Testing
@testable import TophhieReplay

/// A Log Analytics CSV row's id and time read from their own fields give the time its mapping
/// gives, or nil, and the row is mapped: wherever the mapping might read them otherwise.
@Suite struct CSVRowTimesTests {
    /// The header's reading for the first pass, and the row's fields.
    static func reading(_ csv: String) throws -> (reading: ExportReading, fields: CSVFields) {
        let table = try CSVTable(csv)
        let reading = ExportReading(format: .csv, shape: .csv(header: table.header, nonInteractive: false), members: ExportReading.timeMembers)
            .withRowSlots(ExportReading.timePaths)
        let row = try #require(table.rows.first)
        let line = try #require(csv.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().first)
        let fields = try Array(line.utf8).withUnsafeBytes { try CSVRows.fields(ofRecord: $0, keeping: reading.fieldsRead) }
        #expect(fields.count == row.fields.count)
        return (reading, fields)
    }

    /// The time the mapping gives the row (`ExportReading.rowValues`).
    static func mapped(_ reading: ExportReading, _ fields: CSVFields) -> Date? {
        reading.rowValues(fields: fields).flatMap { ExportConversion.plainTime(id: $0[0], time: $0[1]) }
    }

    @Test(arguments: [
        "TimeGenerated [UTC],Id,CreatedDateTime,ResultType\n2024-05-01T10:00:01Z,a1,2024-05-01T10:00:00.5Z,0",
        "id,createdDateTime,Status\na1,2024-05-01T10:00:00.1234567Z,\"{\"\"errorCode\"\":0}\"",
        "CreatedDateTime,AppDisplayName,Id\n2024-05-01T10:00:00+02:00,\"Azure, Portal\",a1",
    ])
    func aRowReadByItsFieldsGivesTheMappedTime(_ csv: String) throws {
        let (reading, fields) = try Self.reading(csv)
        let times = try #require(reading.csvRowTimes)
        let time = try #require(times.time(of: fields))
        #expect(time == Self.mapped(reading, fields))
        #expect(StreamedExport.rowTime(fields: fields, reading: reading, memory: nil) == time)
    }

    @Test(arguments: [
        // Its id empty, or its time PowerShell's, the portal's, or none (then TimeGenerated's).
        "Id,CreatedDateTime\n,2024-05-01T10:00:00Z",
        "Id,CreatedDateTime\na1,/Date(1714557600000)/",
        "Id,CreatedDateTime\na1,\"5/1/2024, 10:00:00.123 AM\"",
        "Id,CreatedDateTime,TimeGenerated\na1,,2024-05-01T10:00:01Z",
    ])
    func aRowWhoseFieldsDoNotReadPlainlyIsMapped(_ csv: String) throws {
        let (reading, fields) = try Self.reading(csv)
        #expect(try #require(reading.csvRowTimes).time(of: fields) == nil)
        #expect(StreamedExport.rowTime(fields: fields, reading: reading, memory: nil) == Self.mapped(reading, fields))
    }

    @Test(arguments: [
        // The id or the time twice over, under two names or with the portal's ending; or none.
        "Id,id,CreatedDateTime\na1,a2,2024-05-01T10:00:00Z",
        "Id,CreatedDateTime,CreatedDateTime [UTC]\na1,2024-05-01T10:00:00Z,2024-05-01T11:00:00Z",
        "Id,CreatedDateTime [UTC],CreatedDateTime\na1,2024-05-01T11:00:00Z,2024-05-01T10:00:00Z",
        "Id,TimeGenerated\na1,2024-05-01T10:00:01Z",
        "CreatedDateTime,UserId\n2024-05-01T10:00:00Z,u1",
    ])
    func aHeaderThatNamesThemOtherwiseLeavesEveryRowToTheMapping(_ csv: String) throws {
        let (reading, _) = try Self.reading(csv)
        #expect(reading.csvRowTimes == nil)
    }
}
