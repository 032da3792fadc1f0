import Foundation
import TophhieJSON

/// The id and time of a Log Analytics CSV row read from its own two fields, for the index of a
/// first pass that leaves the check to the second (`RowTimes` for CSV): mapping each row
/// (`RowSlots`), with the columns the mapping reads for its time and status, was more than
/// half of that pass.
///
/// Taken only when the header gives the record's id and its time by one column each: then the
/// mapping's `id` and `createdDateTime` are those fields' text, as they are. A row whose id is
/// empty or whose time is not ISO 8601 (PowerShell's, the portal's, none: the mapping then reads
/// `TimeGenerated` or rewrites it) gives nil, and is mapped.
struct CSVRowTimes: Sendable, Equatable {
    /// The places of the id's field and the time's.
    let id: Int
    let time: Int

    /// Nil when the header names the id or the time by no column or by more than one (`Id` and
    /// `id`, `CreatedDateTime` and `CreatedDateTime [UTC]`), or reads either otherwise than as
    /// its text.
    init?(header: [String]) {
        let mappings = header.map(ColumnMapping.init)
        func only(_ member: String) -> Int? {
            let places = mappings.indices.filter { mappings[$0].member == member }
            guard places.count == 1, mappings[places[0]].reading == .plain else { return nil }
            return places[0]
        }
        guard let id = only("id"), let time = only("createdDateTime") else { return nil }
        self.id = id
        self.time = time
    }

    /// The row's time when its id is not empty and its time reads as the quick check reads it;
    /// nil when it is to be mapped.
    /// - Parameter fields: the row's fields, as many as the header's.
    func time(of fields: CSVFields) -> Date? {
        fields.withView { view in
            guard max(id, time) < view.count, !view[id].isEmpty else { return nil }
            let bytes = view[time]
            return GraphTimestamp.parse(utf8: UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count))
        }
    }
}
