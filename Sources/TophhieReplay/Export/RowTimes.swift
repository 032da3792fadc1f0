import Foundation
import TophhieJSON

/// The id and time of a Log Analytics row (a JSON object) read by their own column names, for
/// the index of a first pass that leaves the check to the second (`StreamedExport`'s
/// `timesOnly`): mapping each row (`RowSlots`) cost as much again as walking it.
///
/// The row is walked whole, so a name met twice counts as the mapping counts it (the last).
/// Any row the mapping might read otherwise gives nil and is mapped: one naming its id or its
/// time twice over (`Id` and `id`), one without `CreatedDateTime` (its time is then when Log
/// Analytics took it in), a portal's column or a name written with an escape
/// (`RowSlots.portalEndings`), or a time that is not ISO 8601 (PowerShell's, the portal's).
///
/// One for each batch read on one thread: it learns the rows' column order.
struct RowTimes {
    private let layout = JSONSlotLayout(paths: [["Id"], ["id"], ["CreatedDateTime"], ["createdDateTime"]])
    private let order: JSONMemberOrder

    init() {
        order = layout.memberOrder()
    }

    /// The row's time when its id is text and its time reads; nil when it is to be mapped.
    func time(ofRow bytes: UnsafeRawBufferPointer) -> Date? {
        withUnsafeTemporaryAllocation(of: JSONValue?.self, capacity: 4) { slots -> Date? in
            slots.initialize(repeating: nil)
            defer { JSONValue.dropSlots(slots) }
            guard bytes.first(where: { !JSONElementSplitter.isSpace($0) }) == UInt8(ascii: "{"),
                  let watched = try? JSONValue.parseSlots(bytes, layout: layout, into: slots, watching: RowSlots.portalEndings, order: order),
                  !watched, (slots[0] == nil) != (slots[1] == nil), (slots[2] == nil) != (slots[3] == nil) else { return nil }
            return ExportConversion.plainTime(id: slots[0] ?? slots[1], time: slots[2] ?? slots[3])
        }
    }
}
