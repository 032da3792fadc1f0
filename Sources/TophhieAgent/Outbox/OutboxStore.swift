import Foundation
import TophhieRules
import TophhieSystem

/// A durable, ordered, de-duplicating queue of alerts for one notifier.
///
/// Files under `<stateDir>/outbox/`, all 0600:
/// - `<notifier>.jsonl`: one `OutboxEntry` per line, in append order.
/// - `<notifier>.settled.jsonl`: ids that left the queue (delivered or dead-lettered), so a
///   replayed alert is never queued or sent again.
/// - `<notifier>.dead.jsonl`: alerts given up on, with the reason, for the operator.
/// - `<notifier>.status.json`: a pending `Retry-After` and whether the receiver disabled it.
/// - `<notifier>.jsonl.damaged`: lines repair could not read, kept byte for byte.
///
/// Every append is fsynced (and the directory, when a file is created) before it returns. A crash
/// mid-append leaves a torn last line: opening the store drops it, truncates the file back to the
/// last whole line and reports it in `recoveryNotes`.
///
/// The actor runs on its own `BlockingSerialExecutor`: its fsyncs never hold a thread of Swift's
/// cooperative pool.
public actor OutboxStore {
    private nonisolated let executor: BlockingSerialExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    public nonisolated let notifier: String
    public nonisolated let directory: String
    nonisolated let queuePath: String
    nonisolated let settledPath: String
    nonisolated let deadPath: String
    nonisolated let statusPath: String
    /// The channel's remembered `Retry-After` and disabled state.
    public private(set) var status: OutboxChannelStatus

    /// Where each pending alert's line is in the queue file, oldest first, from `head` on. The
    /// alerts stay on disk until delivery reads them a batch at a time: holding 50,000 decoded
    /// alerts took 457 MB. Delivery settles the oldest, so taking it off is moving `head`
    /// (removing from the front of an array was a pass over the queue per delivery: 50,000
    /// pending drained at about 12 a second).
    private var queue: [OutboxSlot] = []
    private var head = 0
    private var pendingIDs: Set<String> = []
    private var pending: ArraySlice<OutboxSlot> { queue[head...] }
    /// The queue file's length as this store wrote or read it: where the next append starts.
    private var queueFileSize = 0
    /// Settled ids and when; pruned after `settledRetention`.
    private var settled: [String: OutboxSettlement] = [:]
    /// Entries still in the queue file that are already settled, until compaction.
    private var settledInQueueFile = 0
    private let compactionThreshold: Int
    private let settledRetention: TimeInterval
    /// What opening had to repair, in words.
    public nonisolated let recoveryNotes: [String]

    /// Opens (creating if needed) the outbox of `notifier` under `stateDirectory`.
    /// - Parameters:
    ///   - compactionThreshold: settled entries tolerated in the queue file before it is rewritten.
    ///   - settledRetention: how long settled ids are remembered; longer than any replay window
    ///     (Graph keeps sign-ins at most 30 days).
    ///   - repair: false to only read (`status`, `outbox list` beside a running agent): damage is
    ///     reported in `recoveryNotes` but nothing is written.
    /// - Throws: `OutboxError` when the name is unusable or the files cannot be read or repaired.
    public init(stateDirectory: String, notifier: String, compactionThreshold: Int = 64, settledRetention: TimeInterval = 90 * 86_400, repair: Bool = true) throws {
        guard Self.isUsableName(notifier) else {
            throw OutboxError("notifier name \"\(ControlCharacterEscaping.escape(notifier))\" cannot name an outbox file; use letters, digits, '-', '_' or '.', not starting with '.'")
        }
        self.notifier = notifier
        self.directory = stateDirectory + "/outbox"
        self.queuePath = directory + "/\(notifier).jsonl"
        self.settledPath = directory + "/\(notifier).settled.jsonl"
        self.deadPath = directory + "/\(notifier).dead.jsonl"
        self.statusPath = directory + "/\(notifier).status.json"
        self.compactionThreshold = compactionThreshold
        self.settledRetention = settledRetention
        self.executor = BlockingSerialExecutor(label: "tophhie.outbox.\(notifier)")
        if repair {
            do {
                try DurableFile.makeDirectory(directory, mode: 0o700)
            } catch {
                throw OutboxError(wrapping: error)
            }
        }
        var notes: [String] = []
        let settledLines: [OutboxSettlement] = try Self.readLines(settledPath, notes: &notes, repair: repair)
        for line in settledLines { settled[line.id] = line }
        let scan = try Self.scanQueue(queuePath, notes: &notes, repair: repair)
        queueFileSize = scan.size
        for slot in scan.slots {
            if settled[slot.id] != nil {
                settledInQueueFile += 1
            } else if pendingIDs.insert(slot.id).inserted {
                queue.append(slot)
            }
        }
        if let data = FileManager.default.contents(atPath: statusPath) {
            if let read = try? OutboxCoding.decoder().decode(OutboxChannelStatus.self, from: data) {
                status = read
            } else {
                // Forgetting a Retry-After or a 410 costs one early attempt; the receiver says it again.
                notes.append("\(statusPath): unreadable (\(data.count) bytes); starting with no Retry-After and the channel enabled")
                status = OutboxChannelStatus()
            }
        } else {
            status = OutboxChannelStatus()
        }
        recoveryNotes = notes
    }

    /// Replaces the channel status durably.
    public func setStatus(_ status: OutboxChannelStatus) throws {
        guard status != self.status else { return }
        do {
            try DurableFile.replace(statusPath, with: Array(OutboxCoding.encoder().encode(status)), mode: 0o600)
        } catch let error as FileError {
            throw OutboxError(wrapping: error)
        } catch {
            throw OutboxError("cannot encode the status of \(notifier): \(error)")
        }
        self.status = status
    }

    /// Puts dead letters back in the queue (all, or those with the given ids) with a fresh age,
    /// so the next drain tries them again.
    /// - Returns: the ids requeued, in dead-letter order.
    /// - Throws: `OutboxError` when the files cannot be rewritten. A crash part-way leaves the
    ///   alert in the dead-letter file, so running the retry again finishes it.
    public func requeueDeadLetters(ids: Set<String>? = nil, at now: Date) throws -> [String] {
        let dead = try deadLetters()
        let chosen = dead.filter { ids?.contains($0.alert.id) ?? true }
        guard !chosen.isEmpty else { return [] }
        let chosenIDs = Set(chosen.map(\.alert.id))
        // The queue file may still hold the old lines of these alerts, which would come back on
        // open with their old age: rewrite it with only what is pending.
        try compact(now: now)
        // Forget the settlements first (a crash here leaves them dead-lettered and unsettled:
        // still listed, and retried by the next `outbox retry`), then queue, then shorten the file.
        for id in chosenIDs { settled.removeValue(forKey: id) }
        var log: [UInt8] = []
        for settlement in settled.values.sorted(by: { ($0.at, $0.id) < ($1.at, $1.id) }) { log += try encode(settlement) }
        try replace(settledPath, with: log)
        var seen = Set<String>()
        let fresh = chosen.filter { seen.insert($0.alert.id).inserted }.map(\.alert)
        try append(contentsOf: fresh, at: now)
        var rest: [UInt8] = []
        for letter in dead where !chosenIDs.contains(letter.alert.id) { rest += try encode(letter) }
        try replace(deadPath, with: rest)
        return fresh.map(\.id)
    }

    static func isUsableName(_ name: String) -> Bool {
        guard !name.isEmpty, name.count <= 64, !name.hasPrefix(".") else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)) }
    }

    /// Queues `alert` durably unless its id is already queued or settled.
    /// - Returns: false when it was a duplicate and nothing was written.
    @discardableResult
    public func append(_ alert: Alert, at now: Date) throws -> Bool {
        try append(contentsOf: [alert], at: now) == 1
    }

    /// Queues several alerts with one fsync, skipping duplicates (also within `alerts`).
    /// - Returns: how many were queued.
    @discardableResult
    public func append(contentsOf alerts: [Alert], at now: Date) throws -> Int {
        var bytes: [UInt8] = []
        var added: [OutboxSlot] = []
        var seen = Set<String>()
        for alert in alerts where !pendingIDs.contains(alert.id) && settled[alert.id] == nil && seen.insert(alert.id).inserted {
            let line = try encode(OutboxEntry(alert: alert, appendedAt: now))
            added.append(OutboxSlot(id: alert.id, appendedAt: now, offset: queueFileSize + bytes.count, length: line.count - 1))
            bytes += line
        }
        guard !added.isEmpty else { return 0 }
        try durableAppend(bytes, to: queuePath)
        queueFileSize += bytes.count
        for slot in added {
            queue.append(slot)
            pendingIDs.insert(slot.id)
        }
        return added.count
    }

    /// The queued alerts, oldest first, read from the queue file.
    /// - Parameter limit: at most this many, from the oldest (delivery reads a batch at a time).
    /// - Throws: `OutboxError` when the file cannot be read or changed under this store.
    public func pendingEntries(limit: Int = .max) throws -> [OutboxEntry] {
        let slots = pending.prefix(limit)
        guard !slots.isEmpty else { return [] }
        let file: ReadableFile
        do {
            file = try ReadableFile(path: queuePath)
        } catch {
            throw OutboxError(wrapping: error)
        }
        let decoder = OutboxCoding.decoder()
        return try slots.map { slot in
            let line = try readLine(slot, from: file)
            guard let entry = try? decoder.decode(OutboxEntry.self, from: Data(line)), entry.alert.id == slot.id else {
                throw OutboxError("\(queuePath): the line of alert \(slot.id) at byte \(slot.offset) no longer reads as it; another process rewrote the outbox, run the command again")
            }
            return entry
        }
    }

    /// How many alerts wait.
    public var pendingCount: Int { pending.count }

    /// When the oldest waiting alert was queued; nil when none waits.
    public var oldestPendingAppendedAt: Date? { pending.lazy.map(\.appendedAt).min() }

    /// Whether `id` was delivered or dead-lettered (and is remembered).
    public func isSettled(_ id: String) -> Bool { settled[id] != nil }

    /// Records durably that `id` was delivered; it will never be queued or sent again.
    public func markDelivered(_ id: String, at now: Date) throws {
        try settle(id, outcome: .delivered, at: now)
    }

    /// Moves `id` to the dead-letter file with `reason`, durably, and settles it.
    public func markDeadLettered(_ id: String, reason: String, at now: Date) throws {
        guard let slot = head < queue.count && queue[head].id == id ? queue[head] : pending.first(where: { $0.id == id }) else { return }
        let entry: OutboxEntry
        do {
            let line = try readLine(slot, from: ReadableFile(path: queuePath))
            entry = try OutboxCoding.decoder().decode(OutboxEntry.self, from: Data(line))
        } catch {
            throw OutboxError("\(queuePath): cannot read alert \(id) back to dead-letter it: \(error)")
        }
        try durableAppend(try encode(DeadLetter(alert: entry.alert, at: now, reason: reason)), to: deadPath)
        try settle(id, outcome: .deadLettered, at: now)
    }

    /// The dead-lettered alerts, oldest first.
    public func deadLetters() throws -> [DeadLetter] {
        var notes: [String] = []
        return try Self.readLines(deadPath, notes: &notes, repair: false)
    }

    private func settle(_ id: String, outcome: OutboxSettlement.Outcome, at now: Date) throws {
        guard settled[id] == nil else { return }
        let settlement = OutboxSettlement(id: id, at: now, outcome: outcome)
        try durableAppend(try encode(settlement), to: settledPath)
        settled[id] = settlement
        if pendingIDs.remove(id) != nil {
            if head < queue.count && queue[head].id == id {
                head += 1
            } else if let index = queue[head...].firstIndex(where: { $0.id == id }) {
                queue.remove(at: index)
            }
            if head >= 1024 && head * 2 >= queue.count {
                queue.removeFirst(head)
                head = 0
            }
            settledInQueueFile += 1
        }
        // Rewritten once at least as many settled lines as pending ones are in it: each rewrite
        // is paid for by the deliveries before it, so a drain stays linear.
        if settledInQueueFile >= max(compactionThreshold, pendingIDs.count) { try compact(now: now) }
    }

    /// Rewrites the queue file with only pending entries and forgets settled ids older than the
    /// retention; both files are replaced atomically.
    public func compact(now: Date) throws {
        // The pending lines are copied byte for byte, a piece at a time: nothing is decoded or
        // encoded again, and the new file is never held in memory whole.
        var moved: [OutboxSlot] = []
        moved.reserveCapacity(pending.count)
        var size = 0
        do {
            let old = try ReadableFile(path: queuePath)
            try DurableFile.replace(queuePath, mode: 0o600) { write in
                var piece: [UInt8] = []
                for slot in pending {
                    var line = try readLine(slot, from: old)
                    line.append(0x0A)
                    moved.append(OutboxSlot(id: slot.id, appendedAt: slot.appendedAt, offset: size, length: slot.length))
                    size += line.count
                    piece += line
                    if piece.count >= 1 << 20 {
                        try write(piece)
                        piece.removeAll(keepingCapacity: true)
                    }
                }
                try write(piece)
            }
        } catch let error as OutboxError {
            throw error
        } catch {
            throw OutboxError(wrapping: error)
        }
        queue = moved
        head = 0
        queueFileSize = size
        settledInQueueFile = 0
        let cutoff = now.addingTimeInterval(-settledRetention)
        let kept = settled.filter { $0.value.at >= cutoff }
        if kept.count != settled.count {
            var log: [UInt8] = []
            for settlement in kept.values.sorted(by: { ($0.at, $0.id) < ($1.at, $1.id) }) {
                log += try encode(settlement)
            }
            try replace(settledPath, with: log)
            settled = kept
        }
    }

    /// The line of `slot` (without its newline), checked to be whole.
    private func readLine(_ slot: OutboxSlot, from file: ReadableFile) throws -> [UInt8] {
        let line: [UInt8]
        do {
            line = try file.read(at: slot.offset, count: slot.length)
        } catch {
            throw OutboxError(wrapping: error)
        }
        guard line.count == slot.length else {
            throw OutboxError("\(queuePath): ends before the line of alert \(slot.id) at byte \(slot.offset); another process rewrote the outbox, run the command again")
        }
        return line
    }

    private func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        do {
            return try OutboxCoding.line(value)
        } catch {
            throw OutboxError("cannot encode an outbox entry for \(notifier): \(error)")
        }
    }

    private func durableAppend(_ bytes: [UInt8], to path: String) throws {
        let existed = DurableFile.permissions(of: path) != nil
        do {
            try DurableFile.append(bytes, to: path, mode: 0o600)
            if !existed { try DurableFile.fsyncDirectory(directory) }
        } catch {
            throw OutboxError(wrapping: error)
        }
    }

    private func replace(_ path: String, with bytes: [UInt8]) throws {
        do {
            try DurableFile.replace(path, with: bytes, mode: 0o600)
        } catch {
            throw OutboxError(wrapping: error)
        }
    }

    /// Reads the queue file a piece at a time and notes where each alert's line is, decoding each
    /// once to check it and keeping only its id and age. Damage is handled as `readLines` does;
    /// after a repair the file is read again, so every offset is the repaired file's.
    private static func scanQueue(_ path: String, notes: inout [String], repair: Bool) throws -> (slots: [OutboxSlot], size: Int) {
        guard DurableFile.permissions(of: path) != nil else { return ([], 0) }
        let file: ReadableFile
        do {
            file = try ReadableFile(path: path)
        } catch {
            throw OutboxError("cannot read \(path): \(error)")
        }
        let decoder = OutboxCoding.decoder()
        var slots: [OutboxSlot] = []
        var kept: [Range<Int>] = []
        var damagedLines: [(number: Int, range: Range<Int>)] = []
        var carry: [UInt8] = []
        var carryStart = 0
        var offset = 0
        var lineNumber = 0
        func take(_ line: [UInt8], at start: Int) {
            lineNumber += 1
            guard !line.isEmpty else { return }
            if let entry = try? decoder.decode(OutboxEntry.self, from: Data(line)) {
                slots.append(OutboxSlot(id: entry.alert.id, appendedAt: entry.appendedAt, offset: start, length: line.count))
                kept.append(start..<start + line.count)
            } else {
                damagedLines.append((lineNumber, start..<start + line.count))
            }
        }
        do {
            try file.forEachChunk { chunk in
                var lineStart = 0
                for index in 0..<chunk.count where chunk[index] == 0x0A {
                    carry += chunk[lineStart..<index]
                    take(carry, at: carryStart)
                    carry.removeAll(keepingCapacity: true)
                    lineStart = index + 1
                    carryStart = offset + lineStart
                }
                carry += chunk[lineStart...]
                offset += chunk.count
            }
        } catch {
            throw OutboxError("cannot read \(path): \(error)")
        }
        let aside = path + ".damaged"
        for damaged in damagedLines {
            notes.append("\(path):\(damaged.number): skipped an unreadable line (\(damaged.range.count) bytes)\(repair ? ", moved to \(aside)" : "")")
        }
        if !carry.isEmpty {
            notes.append("\(path):\(lineNumber + 1): dropped a torn last line (\(carry.count) bytes, an append cut short by a crash)")
        }
        guard repair, !carry.isEmpty || !damagedLines.isEmpty else { return (slots, offset - carry.count) }
        do {
            var damaged: [UInt8] = []
            for line in damagedLines { damaged += try file.read(at: line.range.lowerBound, count: line.range.count) + [0x0A] }
            if !damaged.isEmpty { try DurableFile.append(damaged, to: aside, mode: 0o600) }
            try DurableFile.replace(path, mode: 0o600) { write in
                for range in kept { try write(file.read(at: range.lowerBound, count: range.count) + [0x0A]) }
            }
        } catch {
            throw OutboxError("cannot repair \(path): \(error)")
        }
        var again: [String] = []
        return try scanQueue(path, notes: &again, repair: false)
    }

    /// Decodes a JSON-lines file. A last line without its newline is a torn append; a whole line
    /// that does not decode is unreadable. When `repair`, both are moved, byte for byte, to
    /// `<file>.damaged` for the operator and cut from the file, so the same damage is met (and
    /// told) once.
    private static func readLines<T: Decodable>(_ path: String, notes: inout [String], repair: Bool = true) throws -> [T] {
        guard let data = FileManager.default.contents(atPath: path) else {
            if DurableFile.permissions(of: path) != nil { throw OutboxError("cannot read \(path)") }
            return []
        }
        let bytes = Array(data)
        var values: [T] = []
        var kept: [UInt8] = []
        var damaged: [UInt8] = []
        var lineStart = 0
        var lineNumber = 0
        let decoder = OutboxCoding.decoder()
        let aside = path + ".damaged"
        for index in bytes.indices where bytes[index] == 0x0A {
            lineNumber += 1
            let line = bytes[lineStart..<index]
            lineStart = index + 1
            if line.isEmpty { continue }
            if let value = try? decoder.decode(T.self, from: Data(line)) {
                values.append(value)
                kept += line
                kept.append(0x0A)
            } else {
                notes.append("\(path):\(lineNumber): skipped an unreadable line (\(line.count) bytes)\(repair ? ", moved to \(aside)" : "")")
                damaged += line
                damaged.append(0x0A)
            }
        }
        if lineStart < bytes.count {
            let torn = bytes.count - lineStart
            notes.append("\(path):\(lineNumber + 1): dropped a torn last line (\(torn) bytes, an append cut short by a crash)")
        }
        if repair, lineStart < bytes.count || !damaged.isEmpty {
            do {
                if !damaged.isEmpty { try DurableFile.append(damaged, to: aside, mode: 0o600) }
                try DurableFile.replace(path, with: kept, mode: 0o600)
            } catch {
                throw OutboxError("cannot repair \(path): \(error)")
            }
        }
        return values
    }
}

/// An outbox file problem, in words.
public struct OutboxError: Error, Hashable, CustomStringConvertible {
    public var description: String
    /// The file call that failed, when one did: a full disk or a read-only state directory.
    public var fileError: FileError?
    init(_ description: String) { self.description = description }
    init(wrapping error: any Error) {
        description = "\(error)"
        fileError = error as? FileError
    }
}
