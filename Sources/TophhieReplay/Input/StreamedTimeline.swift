import Foundation
import TophhieJSON
import TophhieRules
import TophhieRulesFast
import TophhieSystem

/// A poll timeline `{"polls":[{"at","events"}…]}` read a poll at a time, so memory follows the
/// largest poll rather than the file: the first pass finds each poll and checks it as the
/// whole-file way does (its time, its order, its sign-ins), the second reads them back one by one.
///
/// Two passes so that a wrong poll anywhere stops the replay before any alert is printed, as
/// reading the file whole does; a file this reader does not take, or one with a wrong poll, goes
/// the whole-file way (`WholeReplayFile`), whose message names the poll and the sign-in.
struct StreamedTimeline: Sendable {
    let file: ReadableFile
    /// Where each poll is in the file.
    let polls: [(offset: Int, length: Int)]
    /// The sign-ins of every poll.
    let eventCount: Int
    let projection: JSONProjection

    /// The first pass over `path`, building of each sign-in what `projection` keeps; nil when
    /// the file is not a timeline, or not one this reader can replay.
    /// - Parameter chunkSize: bytes read at a time (tests make it small to cut polls apart).
    static func open(_ path: String, keeping projection: JSONProjection, chunkSize: Int = ReadableFile.chunkSize) -> StreamedTimeline? {
        guard let file = try? ReadableFile(path: path) else { return nil }
        var splitter = JSONElementSplitter(layout: .timeline)
        var polls: [(offset: Int, length: Int)] = []
        var previous: Date?
        var eventCount = 0
        func add(_ offset: Int, _ bytes: UnsafeRawBufferPointer) throws {
            let poll = try StreamedTimeline.poll(bytes, number: polls.count + 1, after: previous, keeping: projection)
            previous = poll.at
            eventCount += poll.events.count
            polls.append((offset, bytes.count))
        }
        do {
            try file.forEachChunk(chunkSize: chunkSize) { chunk in try splitter.feed(chunk, record: add) }
            try splitter.finish(record: add)
        } catch {
            return nil
        }
        return StreamedTimeline(file: file, polls: polls, eventCount: eventCount, projection: projection)
    }

    private static func poll(_ bytes: UnsafeRawBufferPointer, number: Int, after previous: Date?, keeping projection: JSONProjection) throws -> ReplayInput.Poll {
        try ReplayInput.poll(try JSONValue.parse(bytes, keeping: ReplayInput.pollProjection(projection)), number: number, after: previous)
    }

    /// The second pass: calls `body` with each poll, in the file's order.
    /// - Throws: `SignInEventError` when a poll no longer reads as it did (the file changed
    ///   since the first pass), `FileError`, or what `body` throws.
    func forEachPoll(_ body: (ReplayInput.Poll) throws -> Void) throws {
        var previous: Date?
        for (index, place) in polls.enumerated() {
            let bytes = try file.read(at: place.offset, count: place.length)
            guard bytes.count == place.length,
                  let poll = try? bytes.withUnsafeBytes({ try StreamedTimeline.poll($0, number: index + 1, after: previous, keeping: projection) }) else {
                throw SignInEventError("the file changed while it was read (poll \(index + 1) at byte \(place.offset) is not what it was)")
            }
            previous = poll.at
            try body(poll)
        }
    }
}
