import TophhieJSON

/// The quick check of one of Graph's records: its id is text, its time reads, its error code is
/// a number, its coordinates (if any) are a place's, and every string is UTF-8 without a
/// surrogate escape (`ExportConversion.plainlyReads`, `textsRead`). A record it passes is one the
/// poll's decoder takes as it is; only the others need the decoder.
///
/// One for each batch read on one thread: it learns where the records before had their members.
struct PlainRecordCheck {
    private let layout = JSONSlotLayout(paths: ExportConversion.quickPaths)
    private let order: JSONMemberOrder

    init() {
        order = layout.memberOrder()
    }

    /// A record read for a replay that checks as it reads does not pass: the file is checked
    /// whole first, then replayed again (`Replay.run`'s `checkingRecords`).
    struct Failed: Error, CustomStringConvertible {
        /// Where the record starts in the file.
        let offset: Int
        var description: String { "the sign-in at byte \(offset) is not one the poll's decoder takes as it is" }
    }

    /// Whether the record in `bytes` (one JSON object, nothing after it) passes.
    func passes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let slots = try? JSONValue.parseSlots(bytes, layout: layout, order: order) else { return false }
        return Self.passes(slots, bytes)
    }

    /// Whether a record passes whose values at `ExportConversion.quickPaths` were read already,
    /// in the walk that checked its grammar (`EventLayout.alsoReading`).
    static func passes(_ quick: [JSONValue?], _ bytes: UnsafeRawBufferPointer) -> Bool {
        ExportConversion.plainlyReads(quick) && ExportConversion.textsRead(bytes)
    }
}
