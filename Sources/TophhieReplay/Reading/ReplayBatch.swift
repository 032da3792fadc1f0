import Foundation
import TophhieJSON
import TophhieRules
import TophhieRulesFast
import TophhieSystem

/// One batch of a streamed replay's sign-ins read from the file and parsed, on whichever thread
/// asks (`SecondThread` runs it beside the engine).
enum ReplayBatch {
    /// One batch's sign-ins: into the engine's slots when its rules name their fields, whole
    /// when a keyword search reads every string.
    /// - Parameters:
    /// - Parameter reading: how an export's records read (mapped to Graph's shape first), asking
    ///   for what the engine reads (`ExportReading.members(readBy:)`).
    /// - Parameter checking: each record is also given the quick check (Graph's by
    ///   `PlainRecordCheck`, an export's by `ExportReading.event(checkingAt:)`), and the first
    ///   that does not pass, or does not read, throws `PlainRecordCheck.Failed`.
    static func read(_ entries: ArraySlice<ReplayIndex.Entry>, file: ReadableFile, engine: Engine, reading: ExportReading? = nil,
                     checking: Bool = false) throws -> [any FastEvent] {
        if let reading { return try read(entries, file: file, engine: engine, reading: reading, checking: checking) }
        var events: [any FastEvent] = []
        events.reserveCapacity(entries.count)
        let check = checking ? PlainRecordCheck() : nil
        func checked(_ bytes: UnsafeRawBufferPointer, _ entry: ReplayIndex.Entry) throws {
            if let check, !check.passes(bytes) { throw PlainRecordCheck.Failed(offset: entry.offset) }
        }
        // Checked, a record that does not read is the check's to name.
        func event<Event>(_ entry: ReplayIndex.Entry, _ read: () throws -> Event) throws -> Event {
            do { return try read() } catch where checking { throw PlainRecordCheck.Failed(offset: entry.offset) }
        }
        guard let layout = engine.eventLayout else {
            let projection = engine.eventProjection
            for entry in entries {
                let bytes = try file.read(at: entry.offset, count: Int(entry.length))
                try bytes.withUnsafeBytes { try checked($0, entry) }
                events.append(fastEvent(try event(entry) { try ReplayIndex.event(bytes, entry: entry, keeping: projection) }))
            }
            return events
        }
        if let stretch = try stretch(entries, file: file) {
            try stretch.bytes.withUnsafeBytes { raw in
                for entry in entries {
                    let bytes = Self.bytes(of: entry, in: raw, from: stretch.from)
                    events.append(try event(entry) { try ReplayIndex.event(bytes, entry: entry, layout: layout) })
                    try checked(bytes, entry)
                }
            }
        } else {
            for entry in entries {
                let bytes = try file.read(at: entry.offset, count: Int(entry.length))
                events.append(try event(entry) { try ReplayIndex.event(bytes, entry: entry, layout: layout) })
                try bytes.withUnsafeBytes { try checked($0, entry) }
            }
        }
        return events
    }

    /// The bytes a batch's records span, in one read, with where they start: a batch is a run of
    /// sign-ins in time, which a file sorted either way holds side by side. Nil when they are
    /// spread wider (then each is read on its own).
    static func stretch(_ entries: ArraySlice<ReplayIndex.Entry>, file: ReadableFile) throws -> (bytes: [UInt8], from: Int)? {
        let from = entries.map(\.offset).min() ?? 0
        let to = entries.map { $0.offset + Int($0.length) }.max() ?? 0
        let wanted = entries.reduce(0) { $0 + Int($1.length) }
        guard to - from <= 2 * wanted + (1 << 20) else { return nil }
        return (try file.read(at: from, count: to - from), from)
    }

    /// One entry's bytes in a stretch read from `from` (short when the file was cut since).
    static func bytes(of entry: ReplayIndex.Entry, in stretch: UnsafeRawBufferPointer, from: Int) -> UnsafeRawBufferPointer {
        let start = entry.offset - from, end = min(start + Int(entry.length), stretch.count)
        return UnsafeRawBufferPointer(rebasing: stretch[start..<max(start, end)])
    }

    /// One batch of an export's records, each read from its own bytes, mapped and made the
    /// engine's event.
    /// - Throws: `SignInEventError` when a record no longer reads as the first pass read it;
    ///   with `checking` (the reading `reading(for:checking:)`'s), `PlainRecordCheck.Failed`.
    private static func read(_ entries: ArraySlice<ReplayIndex.Entry>, file: ReadableFile, engine: Engine, reading: ExportReading,
                             checking: Bool) throws -> [any FastEvent] {
        func events(_ entries: ArraySlice<ReplayIndex.Entry>, in stretch: [UInt8], from: Int) throws -> [any FastEvent] {
            var events: [any FastEvent] = []
            events.reserveCapacity(entries.count)
            // This thread's memory of the rows it reads, one to the next.
            let memory = reading.rowMemory()
            try stretch.withUnsafeBytes { raw in
                for entry in entries {
                    let bytes = Self.bytes(of: entry, in: raw, from: from)
                    let changed = SignInEventError("the file changed while it was read (the sign-in at byte \(entry.offset) is not what it was)")
                    guard bytes.count == Int(entry.length) else { throw changed }
                    let read: (any FastEvent)?
                    do {
                        read = try reading.event(bytes, engine: engine, memory: memory, checkingAt: checking ? entry.offset : nil)
                    } catch let failed as PlainRecordCheck.Failed {
                        throw failed
                    } catch {
                        read = nil
                    }
                    guard let event = read else { throw changed }
                    // Read for its time alone, a record is read again by its check.
                    guard event.eventTime == entry.time else { throw checking ? PlainRecordCheck.Failed(offset: entry.offset) : changed }
                    events.append(event)
                }
            }
            return events
        }
        guard let (stretch, from) = try stretch(entries, file: file) else {
            return try entries.flatMap { entry in try events([entry][...], in: try file.read(at: entry.offset, count: Int(entry.length)), from: entry.offset) }
        }
        return try events(entries, in: stretch, from: from)
    }

    /// One run's sign-ins, read whole and parsed record after record (split again first when the
    /// rules read whole records), in the engine's order (time, id, place).
    /// - Throws: `SignInEventError` when the run no longer holds what the first pass found;
    ///   with `checking`, `PlainRecordCheck.Failed` as `read(_:file:engine:reading:checking:)`.
    static func read(_ run: ReplayRun, layout: JSONElementSplitter.Layout, file: ReadableFile, engine: Engine, checking: Bool = false) throws -> [any FastEvent] {
        let bytes = try file.read(at: run.start, count: run.end - run.start)
        let changed = runChanged(run)
        guard bytes.count == run.end - run.start else { throw changed }
        if let slots = engine.eventLayout {
            // Held as slot events until they are in order: sorting existentials swapped boxes
            // that were shared for the moment, and each was copied (an allocation a sign-in).
            var found: [(event: SlotEvent, offset: Int)] = []
            found.reserveCapacity(max(0, run.count))
            // Checked, the values the check reads are read in the same walk.
            let other = checking ? slots.alsoReading(ExportConversion.quickPaths) : nil
            // The order of the run's records' members, learned from the record before.
            let order = other?.memberOrder() ?? slots.memberOrder()
            // And the strings they held: most of a sign-in's repeat one before.
            let texts = other?.repeatedTexts() ?? slots.repeatedTexts()
            // Record after record from the run's first byte, each parse ending at its record's
            // closing brace: splitting the run again first was a tenth of the reading thread.
            try bytes.withUnsafeBytes { raw in
                var index = 0
                while true {
                    // Between records: a comma (a document's array) or a newline (JSON lines).
                    guard let next = nextRecord(in: raw, layout: layout, from: index, first: found.isEmpty) else { throw changed }
                    index = next
                    guard index < raw.count else { break }
                    var quick: [JSONValue?] = []
                    let read: (event: SlotEvent, end: Int)?
                    if let other {
                        read = try? slots.event(raw, from: index, alsoReading: other, order: order, texts: texts) { quick = $0 }
                    } else {
                        read = try? slots.event(raw, from: index, order: order, texts: texts)
                    }
                    guard let (event, end) = read else {
                        // A record found whole that does not read is the check's to name.
                        if other != nil, run.count >= 0 { throw PlainRecordCheck.Failed(offset: run.start + index) }
                        throw changed
                    }
                    guard event.eventTime >= run.earliest, event.eventTime <= run.latest else { throw changed }
                    if other != nil, !PlainRecordCheck.passes(quick, UnsafeRawBufferPointer(rebasing: raw[index..<end])) {
                        throw PlainRecordCheck.Failed(offset: run.start + index)
                    }
                    found.append((event, run.start + index))
                    index = end
                }
            }
            guard run.count < 0 || found.count == run.count else { throw changed }
            return inEngineOrder(&found)
        }
        var found: [(event: any FastEvent, offset: Int)] = []
        found.reserveCapacity(max(0, run.count))
        let check = checking ? PlainRecordCheck() : nil
        var splitter = JSONElementSplitter(layout: layout)
        // Records between their first and last byte: an array's elements once bracketed, or lines.
        let record: (Int, UnsafeRawBufferPointer) throws -> Void = { offset, record in
            let failed = PlainRecordCheck.Failed(offset: run.start + offset - (layout == .document ? 1 : 0))
            guard let event = ReplayBatch.event(record, engine: engine) else {
                if check != nil, run.count >= 0 { throw failed }
                throw changed
            }
            guard event.eventTime >= run.earliest, event.eventTime <= run.latest else { throw changed }
            if let check, !check.passes(record) { throw failed }
            found.append((event, offset))
        }
        do {
            if layout == .document { try [UInt8(ascii: "[")].withUnsafeBytes { try splitter.feed($0, record: record) } }
            try bytes.withUnsafeBytes { try splitter.feed($0, record: record) }
            if layout == .document { try [UInt8(ascii: "]")].withUnsafeBytes { try splitter.feed($0, record: record) } }
            try splitter.finish(record: record)
        } catch is JSONElementSplitter.Unsupported {
            throw changed
        }
        guard run.count < 0 || found.count == run.count else { throw changed }
        found.sort { ($0.event.eventTime, $0.event.eventID, $0.offset) < ($1.event.eventTime, $1.event.eventID, $1.offset) }
        return found.map(\.event)
    }

    /// One run of an export's rows (Log Analytics JSON), each read in place from the run's first
    /// byte and checked (`ExportReading.checkedEvent`), in the engine's order (time, id, place).
    /// - Throws: as `read(_:layout:file:engine:checking:)`; `PlainRecordCheck.Failed` for a row
    ///   found whole that is not read straight into the slots or does not pass the quick check.
    /// - Parameter reading: `ExportReading.reading(for:checking:)`'s, checking.
    static func read(_ run: ReplayRun, layout: JSONElementSplitter.Layout, file: ReadableFile, engine: Engine, reading: ExportReading) throws -> [any FastEvent] {
        let bytes = try file.read(at: run.start, count: run.end - run.start)
        let changed = runChanged(run)
        guard bytes.count == run.end - run.start, let memory = reading.rowMemory() else { throw changed }
        var found: [(event: SlotEvent, offset: Int)] = []
        found.reserveCapacity(max(0, run.count))
        try bytes.withUnsafeBytes { raw in
            var index = 0
            while true {
                guard let start = nextRecord(in: raw, layout: layout, from: index, first: found.isEmpty) else { throw changed }
                guard start < raw.count else { break }
                let read: (event: SlotEvent, end: Int)
                do {
                    read = try reading.checkedEvent(in: raw, from: start, engine: engine, memory: memory, offset: run.start + start)
                } catch let failed as PlainRecordCheck.Failed {
                    // A row found whole is the check's to name; between samples, one that does
                    // not read may be a sample's wrong guess.
                    guard run.count >= 0 || (try? JSONValue.parseSlots(raw, from: start, layout: Self.nothing).end) != nil else { throw changed }
                    throw failed
                }
                guard read.event.eventTime >= run.earliest, read.event.eventTime <= run.latest else { throw changed }
                found.append((read.event, run.start + start))
                index = read.end
            }
        }
        guard run.count < 0 || found.count == run.count else { throw changed }
        return inEngineOrder(&found)
    }

    /// A run's sign-ins in the engine's order, taken from the end, not mapped: mapping copied
    /// each event (its id, values and layout retained) into its box and then released the
    /// original. `found` is left empty.
    private static func inEngineOrder(_ found: inout [(event: SlotEvent, offset: Int)]) -> [any FastEvent] {
        putInEngineOrderFromTheEnd(&found)
        var events: [any FastEvent] = []
        events.reserveCapacity(found.count)
        while let next = found.popLast() { events.append(next.event) }
        return events
    }

    /// Where the next record of a run starts at or after `index`, past the separator before it
    /// (none before the first; one comma in a document, new lines in JSON lines): `raw.count`
    /// at the run's end, nil when the bytes there are not one.
    static func nextRecord(in raw: UnsafeRawBufferPointer, layout: JSONElementSplitter.Layout, from start: Int, first: Bool) -> Int? {
        var index = start, separators = 0
        while index < raw.count {
            let b = raw[index]
            if b == 0x20 || b == 0x09 || b == 0x0D { index += 1; continue }
            if b == (layout == .lines ? 0x0A : UInt8(ascii: ",")) { separators += 1; index += 1; continue }
            if b == 0x0A, layout != .lines { index += 1; continue }
            break
        }
        guard index < raw.count else { return index }
        return (first ? separators == 0 : (layout == .lines ? separators > 0 : separators == 1)) ? index : nil
    }

    /// A layout of no slots: a record is walked to its end.
    private static let nothing = JSONSlotLayout(paths: [])

    /// What a run that does not read as the first pass found it throws.
    static func runChanged(_ run: ReplayRun) -> SignInEventError {
        // A run between samples (count -1) may simply have been guessed wrong: a sample inside a
        // record of a nested list, or a sign-in out of its place. Only a counted run, found
        // record by record, can have changed under the reader.
        SignInEventError(run.count < 0
            ? "the sign-ins from byte \(run.start) do not read as whole sign-ins within the times of the samples around them (a sample inside a record, or a sign-in out of time order)"
            : "the file changed while it was read (the sign-ins from byte \(run.start) are not what they were)")
    }

    /// Puts sign-ins so that taking them from the end gives the engine's order (time, id, place
    /// in the file), in place. A run of a file in time order is in that order already (Graph's
    /// pages are newest first) or in its reverse: those are checked and kept or turned round
    /// rather than sorted, and nothing is copied.
    static func putInEngineOrderFromTheEnd(_ found: inout [(event: SlotEvent, offset: Int)]) {
        func before(_ a: (event: SlotEvent, offset: Int), _ b: (event: SlotEvent, offset: Int)) -> Bool {
            if a.event.eventTime != b.event.eventTime { return a.event.eventTime < b.event.eventTime }
            if a.event.eventID != b.event.eventID { return a.event.eventID < b.event.eventID }
            return a.offset < b.offset
        }
        if found.count < 2 { return }
        var ascending = true, descending = true
        for i in 1..<found.count {
            if ascending, !before(found[i - 1], found[i]) { ascending = false }
            if descending, !before(found[i], found[i - 1]) { descending = false }
            if !ascending && !descending { break }
        }
        if descending { return }
        if ascending { found.reverse(); return }
        found.sort { before($1, $0) }
    }

    /// One record as the engine reads it: into its slots when its rules name their fields, else
    /// kept as far as they read; nil when it is not a readable sign-in.
    static func event(_ record: UnsafeRawBufferPointer, engine: Engine) -> (any FastEvent)? {
        if let slots = engine.eventLayout { return try? slots.event(record) }
        guard let json = try? JSONValue.parse(record, keeping: engine.eventProjection), let event = try? SignInEvents.event(json) else { return nil }
        return fastEvent(event)
    }
}
