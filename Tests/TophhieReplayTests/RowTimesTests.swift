import Foundation
import Testing
import TophhieJSON
@testable import TophhieReplay

/// A Log Analytics row's id and time read by their own names give the time its mapping gives,
/// or nil, and the row is mapped: wherever the mapping might read them otherwise.
@Suite struct RowTimesTests {
    /// The time the mapping gives the row (`ExportReading.rowValues`), as the first pass read it.
    static func mapped(_ row: String) -> Date? {
        let reading = ExportReading(format: .logAnalytics, shape: .json(columnNames: nil), members: ExportReading.timeMembers).withRowSlots(ExportReading.timePaths)
        guard let values = Array(row.utf8).withUnsafeBytes({ reading.rowValues($0) }) else { return nil }
        return ExportConversion.plainTime(id: values[0], time: values[1])
    }

    static func read(_ row: String) -> Date? {
        Array(row.utf8).withUnsafeBytes { RowTimes().time(ofRow: $0) }
    }

    @Test(arguments: [
        #"{"TimeGenerated":"2024-05-01T10:00:01Z","Type":"SigninLogs","Id":"a1","CreatedDateTime":"2024-05-01T10:00:00.5Z","AppDisplayName":"Azure Portal"}"#,
        #"{"id":"a1","createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":0}}"#,
        // A name met twice counts the last time, as the mapping counts it.
        #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00Z","CreatedDateTime":"2024-05-01T11:00:00Z"}"#,
        #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00.1234567Z","LocationDetails":{"city":"Z\u00fcrich"}}"#,
        // A name written with an escape is the name it spells.
        #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00Z","Created\u0044ateTime":"2024-05-01T11:00:00Z"}"#,
    ])
    func aRowReadByItsNamesGivesTheMappedTime(_ row: String) throws {
        let time = try #require(Self.read(row))
        #expect(time == Self.mapped(row))
    }

    @Test(arguments: [
        // Its id twice over, or none.
        #"{"Id":"a1","id":"a2","CreatedDateTime":"2024-05-01T10:00:00Z"}"#,
        #"{"CreatedDateTime":"2024-05-01T10:00:00Z"}"#,
        #"{"Id":"","CreatedDateTime":"2024-05-01T10:00:00Z"}"#,
        // Its time from when Log Analytics took it in, or twice over.
        #"{"Id":"a1","TimeGenerated":"2024-05-01T10:00:01Z"}"#,
        #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00Z","createdDateTime":"2024-05-01T10:00:00Z"}"#,
        // The portal's column, and a name written with an escape.
        #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00Z","CreatedDateTime [UTC]":"2024-05-01T11:00:00Z"}"#,
        // PowerShell's time, the portal's, and none.
        #"{"Id":"a1","CreatedDateTime":"/Date(1714557600000)/"}"#,
        #"{"Id":"a1","CreatedDateTime":"5/1/2024, 10:00:00.123 AM"}"#,
        #"{"Id":"a1","CreatedDateTime":null}"#,
        // Not an object, or not JSON.
        #"["a1","2024-05-01T10:00:00Z"]"#,
        #"{"Id":"a1","CreatedDateTime":"2024-05-01T10:00:00Z",}"#,
    ])
    func aRowTheMappingMightReadOtherwiseIsLeftToIt(_ row: String) {
        #expect(Self.read(row) == nil)
    }
}
