import Foundation
import TophhieRules

/// What the engine works out of one sign-in without its state: which detection rules it
/// satisfies (and, worked out ahead, its content hash, its id's hash and its group). Pure, so a
/// replay works it out on its reading thread while the engine takes the batch before
/// (`Engine.prepare`, or `Engine.prepareLater` and `workAhead`, leaving what the reading thread
/// had no time for to the engine). A class: the engine's loop and its sort pass it on without
/// copying what it holds.
///
/// Outside the rules target only a replay's reader sees it (`@_spi(ReplayReading)`): the
/// engine's package API has no thread hand-off.
///
/// Unchecked Sendable: what `workAhead` writes is written by the thread that made the event,
/// before it hands the batch over (a replay's `SecondThread.take`), and read only after; the
/// matches it had no time for are written by the engine, after.
package final class PreparedEvent: @unchecked Sendable {
    package let event: any FastEvent
    /// `event.eventTime`, read once: checking a batch's order read it through the existential
    /// for every neighbouring pair, copying the event (its values retained and released).
    package let eventTime: Date
    /// The detection rules it satisfies, as indices into the plan's detections, ascending; nil
    /// until worked out (`Engine.prepareLater`), then by the engine as it takes the event.
    private(set) var matched: [Int]?
    /// `event.revision`, when the reading thread worked it out ahead (`workAhead`).
    private var revisionAhead: String?
    private var workedAhead = false
    /// Its group under `EnginePlan.sharedGroupSlots` (none: `.some(nil)`), when worked out ahead.
    private(set) var sharedGroup: HashedText??
    /// Its id with the id's hash, when worked out ahead.
    private var idKey: HashedText?

    init(event: any FastEvent, matched: [Int]?) {
        self.event = event
        eventTime = event.eventTime
        self.matched = matched
    }

    /// `event.revision`, worked out by the engine as it takes the event (`ingest` asks once),
    /// unless the reading thread had time to work it out first: which thread a replay waits
    /// for depends on its rules and its sign-ins, and this work goes to the one with room.
    var revision: String? { workedAhead ? revisionAhead : event.revision }

    /// The id with its hash worked out ahead, handed over once (moved out, not copied).
    func takeIDKey() -> HashedText? {
        guard idKey != nil else { return nil }
        var key: HashedText?
        swap(&key, &idKey)
        return key
    }

    /// The detection rules it satisfies, worked out now through `matching` unless they were.
    func matches(_ matching: inout DetectionMatching) -> [Int] {
        if let matched { return matched }
        let found = matching.matches(event)
        matched = found
        return found
    }

    /// Works out now what the engine would ask of this event under `plan`: the rules it
    /// satisfies, its revision, its id's hash, and its group when a first-seen or travel
    /// correlation will ask for it (`matching` and `keys`: the working thread's own).
    fileprivate func workAhead(_ plan: EnginePlan, matching: inout DetectionMatching, keys: inout GroupKeyCache) {
        guard !workedAhead else { return }
        let matched = matches(&matching)
        revisionAhead = event.revision
        workedAhead = true
        idKey = HashedText(event.eventID)
        if let slots = plan.sharedGroupSlots, matched.contains(where: { plan.feedsPerEventCorrelation[$0] }) {
            sharedGroup = .some(EventGroup(event, slots: slots, keys: &keys)?.hashed)
        }
    }
}

extension Engine {
    /// Works out, for the events of a batch in order, what the engine would ask of them (the
    /// rules they satisfy when not yet matched, their revisions, their ids' hashes and their
    /// groups: `PreparedEvent.workAhead`) until `asked`
    /// says the batch is wanted: called by the thread that made the batch while the engine is
    /// busy with the one before, and never once the batch is handed over.
    /// - Parameter asked: tested every 16 events.
    package func workAhead(_ batch: [PreparedEvent], until asked: () -> Bool) {
        var keys = GroupKeyCache()
        var matching = DetectionMatching(plan)
        for index in batch.indices {
            if index % 16 == 0, asked() { return }
            batch[index].workAhead(plan, matching: &matching, keys: &keys)
        }
    }

    /// `events` as prepared events whose matching is left for later: to `workAhead` on the
    /// thread that read them, while the engine is busy with the batch before, and what it had
    /// no time for to the engine as it takes them. Matching is a tenth of reading a sign-in,
    /// and whichever thread has room now does it.
    package func prepareLater(_ events: consuming [any RuleEvent]) -> [PreparedEvent] {
        prepareLater(events.map(fastEvent))
    }

    /// `prepareLater` of events already read as the fast engine reads them (a replay's).
    package func prepareLater(_ events: consuming [any FastEvent]) -> [PreparedEvent] {
        var prepared: [PreparedEvent] = []
        prepared.reserveCapacity(events.count)
        // Each event moved out of the batch and into its prepared event: mapping lent each one
        // and the prepared event took a copy (its box retained, and released with the batch).
        events.reverse()
        while let event = events.popLast() { prepared.append(PreparedEvent(event: event, matched: nil)) }
        return prepared
    }
}

extension Engine {
    /// Matches each event against every detection rule, outside any pass.
    /// - Complexity: O(n·r) for n events and r detection rules.
    package func prepare(_ events: consuming [any RuleEvent]) -> [PreparedEvent] {
        let prepared = prepareLater(events)
        // The revision and the group are left to whichever thread has room (`workAhead`);
        // a travel place's readable fields to the engine (`observeTravel`): worked out here
        // ahead, their strings were retained on this thread and released on the engine's,
        // and both threads slowed (1.08x wall, measured).
        var matching = DetectionMatching(plan)
        for event in prepared { _ = event.matches(&matching) }
        return prepared
    }
}
