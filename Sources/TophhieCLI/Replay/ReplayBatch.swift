import Foundation
import TophhieRules
import TophhieSystem

/// One batch of a streamed replay's sign-ins read from the file and parsed, on whichever thread
/// asks (`SecondThread` runs it beside the engine).
enum ReplayBatch {
    /// One batch's sign-ins: into the engine's slots when its rules name their fields, whole
    /// when a keyword search reads every string.
    static func read(_ entries: ArraySlice<ReplayIndex.Entry>, file: ReadableFile, engine: Engine) throws -> [any RuleEvent] {
        var events: [any RuleEvent] = []
        events.reserveCapacity(entries.count)
        guard let layout = engine.eventLayout else {
            let projection = engine.eventProjection
            for entry in entries {
                events.append(try ReplayIndex.event(try file.read(at: entry.offset, count: Int(entry.length)), entry: entry, keeping: projection))
            }
            return events
        }
        // A batch is a run of sign-ins in time, which a file sorted either way holds side by
        // side: one read for the stretch they span, rather than one per sign-in.
        let from = entries.map(\.offset).min() ?? 0
        let to = entries.map { $0.offset + Int($0.length) }.max() ?? 0
        let wanted = entries.reduce(0) { $0 + Int($1.length) }
        if to - from <= 2 * wanted + (1 << 20) {
            let stretch = try file.read(at: from, count: to - from)
            try stretch.withUnsafeBytes { raw in
                for entry in entries {
                    let start = entry.offset - from, end = min(start + Int(entry.length), raw.count)
                    events.append(try ReplayIndex.event(UnsafeRawBufferPointer(rebasing: raw[start..<max(start, end)]), entry: entry, layout: layout))
                }
            }
        } else {
            for entry in entries {
                events.append(try ReplayIndex.event(try file.read(at: entry.offset, count: Int(entry.length)), entry: entry, layout: layout))
            }
        }
        return events
    }
}
