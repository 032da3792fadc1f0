import Dispatch
import Foundation
import TophhieRules
import TophhieSystem

/// Reads and parses the next batch of a streamed replay on a second thread while the engine
/// takes the one before: the machine has two cores and parsing is a fifth of a replay.
///
/// Batches are handed over whole and in order, so the engine sees exactly what a single thread
/// would give it. Runs on the caller's blocking-work thread and one dispatch worker, never on
/// Swift's cooperative pool.
final class BatchPrefetch: @unchecked Sendable {
    private let file: ReadableFile
    private let engine: Engine
    private let queue = DispatchQueue(label: "tophhie.replay.prefetch")
    // Written by the worker before it signals, read by the caller after it waits.
    private var result: Result<[any RuleEvent], any Error>?
    private let ready = DispatchSemaphore(value: 0)
    private var started = false

    init(file: ReadableFile, engine: Engine) {
        self.file = file
        self.engine = engine
    }

    /// Starts reading `entries`; at most one batch is in flight.
    func start(_ entries: ArraySlice<ReplayIndex.Entry>) {
        precondition(!started, "a batch is already being read")
        started = true
        queue.async { [self] in
            result = Result { try BatchPrefetch.read(entries, file: file, engine: engine) }
            ready.signal()
        }
    }

    /// Waits for the batch started last.
    /// - Throws: what reading it threw.
    func take() throws -> [any RuleEvent] {
        precondition(started, "no batch was started")
        ready.wait()
        started = false
        defer { result = nil }
        return try result!.get()
    }

    /// One batch's sign-ins: into the engine's slots when its rules name their fields, whole
    /// when a keyword search reads every string.
    static func read(_ entries: ArraySlice<ReplayIndex.Entry>, file: ReadableFile, engine: Engine) throws -> [any RuleEvent] {
        var events: [any RuleEvent] = []
        events.reserveCapacity(entries.count)
        guard let layout = engine.eventLayout else {
            let projection = engine.eventProjection
            for entry in entries {
                events.append(try ReplayIndex.event(try file.read(at: entry.offset, count: entry.length), entry: entry, keeping: projection))
            }
            return events
        }
        // A batch is a run of sign-ins in time, which a file sorted either way holds side by
        // side: one read for the stretch they span, rather than one per sign-in.
        let from = entries.map(\.offset).min() ?? 0
        let to = entries.map { $0.offset + $0.length }.max() ?? 0
        let wanted = entries.reduce(0) { $0 + $1.length }
        if to - from <= 2 * wanted + (1 << 20) {
            let stretch = try file.read(at: from, count: to - from)
            try stretch.withUnsafeBytes { raw in
                for entry in entries {
                    let start = entry.offset - from, end = min(start + entry.length, raw.count)
                    events.append(try ReplayIndex.event(UnsafeRawBufferPointer(rebasing: raw[start..<max(start, end)]), entry: entry, layout: layout))
                }
            }
        } else {
            for entry in entries {
                events.append(try ReplayIndex.event(try file.read(at: entry.offset, count: entry.length), entry: entry, layout: layout))
            }
        }
        return events
    }
}
