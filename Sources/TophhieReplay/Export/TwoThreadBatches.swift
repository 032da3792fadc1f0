/// A file's records worked on a batch at a time by two worker threads, their outcomes handed
/// back in the file's order: mapping an export's record, or checking any, needs nothing of the
/// others. The caller goes on finding the next batch's records while the workers work on the
/// two before, and the machine's two cores stay busy: with the caller working half of each
/// batch itself, the second thread waited while the caller found the records (nearly half of a
/// first pass over Log Analytics rows, more of a CSV's). Whatever has an order (places, skips,
/// the index) is done by `apply`, one record after the other.
///
/// Memory is three batches of records and their outcomes (about `batchBytes` of records each),
/// not the file.
struct TwoThreadBatches<Item: Sendable, Outcome> {
    private let work: @Sendable (ArraySlice<Item>) -> [Outcome]
    private let batchBytes: Int
    private let workers = [SecondThread<[Outcome]>(), SecondThread<[Outcome]>()]
    /// The batches handed to the workers and not yet applied, oldest first, with the worker of each.
    private var working: [(items: [Item], worker: Int)] = []
    private var handed = 0
    private var items: [Item] = []
    private var bytes = 0

    /// - Parameter work: the outcomes of a run of records, one each, in their order, all on
    ///   one thread (which may remember what it read of one for the next: `RowSlots.Memory`);
    ///   a record's outcome must not depend on any other record.
    init(batchBytes: Int = 1 << 20, work: @escaping @Sendable (ArraySlice<Item>) -> [Outcome]) {
        self.work = work
        self.batchBytes = batchBytes
    }

    /// Adds a record of `size` bytes; a batch that is full goes to a worker, once the oldest
    /// batch still worked on, when both are busy, is applied.
    mutating func add(_ item: Item, size: Int, apply: (Item, Outcome) throws -> Void) rethrows {
        items.append(item)
        bytes += size
        if bytes >= batchBytes { try hand(apply: apply) }
    }

    /// Works on and applies every record held, in order.
    mutating func flush(apply: (Item, Outcome) throws -> Void) rethrows {
        if !items.isEmpty { try hand(apply: apply) }
        while !working.isEmpty { try applyOldest(apply) }
    }

    private mutating func hand(apply: (Item, Outcome) throws -> Void) rethrows {
        if working.count == workers.count { try applyOldest(apply) }
        let batch = items
        items = []
        bytes = 0
        let worker = handed % workers.count
        handed += 1
        let work = self.work
        workers[worker].start { work(batch[...]) }
        working.append((batch, worker))
    }

    private mutating func applyOldest(_ apply: (Item, Outcome) throws -> Void) rethrows {
        let (batch, worker) = working.removeFirst()
        let outcomes = (try? workers[worker].take()) ?? work(batch[...])
        do {
            for (item, outcome) in zip(batch, outcomes) { try apply(item, outcome) }
        } catch {
            // The reading stops: the batches after it are not applied.
            for (_, worker) in working { workers[worker].settle() }
            working.removeAll()
            items.removeAll()
            throw error
        }
    }
}
