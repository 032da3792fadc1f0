/// A file's records worked on a batch at a time by two threads, their outcomes handed back in
/// the file's order: mapping an export's record, or checking any, needs nothing of the others,
/// and the machine has two cores, so half of each batch is worked on the second thread while
/// the caller works the other half. Whatever has an order (places, skips, the scratch file's lines)
/// is done by `apply`, one record after the other.
///
/// Memory is a batch of records and their outcomes (about `batchBytes` of records), not the file.
struct TwoThreadBatches<Item: Sendable, Outcome> {
    private let work: @Sendable (ArraySlice<Item>) -> [Outcome]
    private let batchBytes: Int
    private let second = SecondThread<[Outcome]>()
    private var items: [Item] = []
    private var bytes = 0

    /// - Parameter work: the outcomes of a run of records, one each, in their order, all on
    ///   one thread (which may remember what it read of one for the next: `RowSlots.Memory`);
    ///   a record's outcome must not depend on any other record.
    init(batchBytes: Int = 1 << 20, work: @escaping @Sendable (ArraySlice<Item>) -> [Outcome]) {
        self.work = work
        self.batchBytes = batchBytes
    }

    /// Adds a record of `size` bytes; a batch that is full is worked on and applied.
    mutating func add(_ item: Item, size: Int, apply: (Item, Outcome) throws -> Void) rethrows {
        items.append(item)
        bytes += size
        if bytes >= batchBytes { try flush(apply: apply) }
    }

    /// Works on and applies the records held, in order.
    mutating func flush(apply: (Item, Outcome) throws -> Void) rethrows {
        guard !items.isEmpty else { return }
        let batch = items
        items.removeAll(keepingCapacity: true)
        bytes = 0
        let half = batch.count / 2
        let later = batch[half...]
        let work = self.work
        if half > 0 { second.start { work(later) } }
        let first = work(batch[..<half])
        let rest = half > 0 ? ((try? second.take()) ?? work(later)) : work(later)
        for (item, outcome) in zip(batch, first + rest) { try apply(item, outcome) }
    }

    /// Drops the records held without working on them (the reading stopped).
    mutating func discard() {
        items.removeAll()
        bytes = 0
    }
}
