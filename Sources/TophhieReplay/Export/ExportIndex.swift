import Foundation
import TophhieJSON
import TophhieRules
import TophhieSystem

/// Where the records a streamed export's first pass kept are in the file, with their times:
/// what its second pass reads back, in the engine's order, straight into the engine. 24 bytes a
/// record; every `spillLimit` of them are sorted and written to a scratch file as one stretch
/// (`SpilledIndex`), so memory is bounded at any size. No record is copied.
public final class ExportIndex: @unchecked Sendable {
    let file: ReadableFile
    /// The export's path, for messages.
    var path: String { file.path }
    /// How its records read (a table's column names and a CSV header are known once met).
    var reading: ExportReading
    private var index = ReplayIndex()
    private let spilled: SpilledIndex
    private let spillLimit: Int
    private var spilledLatest: Date?
    /// Whether the first pass checked each record kept; false when it read only their ids and
    /// times, and the replay checks them as it reads them (`Replay.run(export:…)`).
    public internal(set) var checked = true
    /// A record with the latest time, checked before any alert when the records are checked as
    /// they are read: the replay's `now` must be one the file checked first gives.
    private(set) var latestEntry: ReplayIndex.Entry?
    /// The runs between the records a first pass sampled, when it only sampled the file
    /// (`SparseFirstPass`), with the file's layout and latest time: the second pass reads and
    /// checks them, and gives way when they are wrong (`Replay.run(export:…)`).
    private(set) var runs: (runs: [ReplayRun], layout: JSONElementSplitter.Layout, latest: Date)?

    /// - Parameter scratchDirectory: where stretches of a large index go (nil: `$TMPDIR`, else /tmp).
    init(file: ReadableFile, reading: ExportReading, scratchDirectory: String?, spillLimit: Int = 1 << 19) {
        self.file = file
        self.reading = reading
        self.spilled = SpilledIndex(directory: scratchDirectory)
        self.spillLimit = spillLimit
    }

    /// The latest time of a record kept: a single-poll replay's `now`.
    var latest: Date? {
        [index.latest, spilledLatest, runs?.latest].compactMap { $0 }.max()
    }

    /// Records kept so far; of a sampled file, the fewest its runs hold (one each, or the
    /// count of a run found record by record).
    var count: Int { spilled.count + index.entries.count + (runs?.runs.reduce(0) { $0 + max(1, $1.count) } ?? 0) }

    /// Whether the first pass only sampled the file: its records are counted by the replay.
    public var isSampled: Bool { runs != nil }

    /// Holds the runs of a sampled file, in the engine's order, in place of its records.
    func take(runs: [ReplayRun], layout: JSONElementSplitter.Layout, latest: Date) {
        self.runs = (runs, layout, latest)
    }

    /// Records one record kept by the first pass.
    /// - Throws: `ReplayFileError` for a record over 2 GB.
    func add(time: Date, offset: Int, length: Int) throws {
        guard index.add(time: time, offset: offset, length: length) else {
            throw ReplayFileError("the record at byte \(offset) is longer than 2 GB")
        }
        if latestEntry.map({ time > $0.time }) ?? true { latestEntry = index.entries[index.entries.count - 1] }
        if index.entries.count >= spillLimit { spill() }
    }

    private func spill() {
        spilledLatest = latest
        index.sort(id: idReader())
        spilled.spill(index.entries)
        index = ReplayIndex()
    }

    /// Reads back the id of the sign-in at an entry (for sign-ins that share a time).
    func idReader() -> @Sendable (ReplayIndex.Entry) -> String? {
        ExportIndex.idReader(file, reading: reading)
    }

    /// Reads back the id of the sign-in at an entry of `file`, read as `reading` says.
    static func idReader(_ file: ReadableFile, reading: ExportReading) -> @Sendable (ReplayIndex.Entry) -> String? {
        let reading = reading.reading(["id"])
        return { entry in
            (try? file.read(at: entry.offset, count: Int(entry.length))).flatMap { bytes in bytes.withUnsafeBytes { reading.id($0) } }
        }
    }

    /// Runs a reading of the export's records back, its faults named as the replay's are: a
    /// record that no longer reads as it did (the file changed), a file that cannot be read.
    /// - Throws: `ReplayFileError`.
    func naming<T>(_ read: () throws -> T) throws -> T {
        do {
            return try read()
        } catch let error as SignInEventError {
            throw ReplayFileError("\(path): \(error.message)")
        } catch let error as FileError {
            throw ReplayFileError(error.description)
        }
    }

    /// The records kept, in the file's order (`rules match`): the whole index in memory, 24
    /// bytes a record.
    /// - Throws: `FileError` when a stretch written to scratch cannot be read back.
    func entriesInFileOrder() throws -> [ReplayIndex.Entry] {
        var entries: [ReplayIndex.Entry] = []
        switch order() {
        case .entries(let held): entries = held
        case .spilled(let spilled):
            var merge = try spilled.merge(id: { _ in nil })
            while true {
                let block = try merge.next(8192)
                if block.isEmpty { break }
                entries += block
            }
        case .runs: preconditionFailure("an export's index holds entries")
        }
        return entries.sorted { $0.offset < $1.offset }
    }

    /// The records kept, in the engine's order (time, id, place in the file), for the second
    /// pass; called once, when the first pass is over.
    func order() -> StreamedReplay.Order {
        if let runs { return .runs(runs.runs) }
        if spilled.count == 0 {
            index.sort(id: idReader())
            return .entries(index.entries)
        }
        if !index.entries.isEmpty { spill() }
        return .spilled(spilled)
    }
}
