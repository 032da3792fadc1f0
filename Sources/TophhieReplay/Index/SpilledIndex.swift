import Foundation
import TophhieRules
import TophhieRulesFast
import TophhieSystem

/// The index of a file in no time order, kept on disk in sorted stretches rather than in memory:
/// the first pass sorts every `spillLimit` entries (`StreamedReplay.open`) and writes them to a
/// scratch file as one stretch, and the second merges the stretches back a block at a time
/// (`ReplayIndexMerge`). Memory stays at one stretch while the file is indexed and a block a
/// stretch while it is replayed, at any size.
///
/// When the scratch file cannot be made or written (no `$TMPDIR`, a full disk), the entries stay
/// in memory instead (`spill` returns false): the replay is the same, only larger.
final class SpilledIndex: @unchecked Sendable {
    private var scratch: ScratchFile?
    private let directory: String?
    /// Each sorted stretch, in the order written.
    private(set) var stretches: [Stretch] = []
    static let stride = MemoryLayout<ReplayIndex.Entry>.stride
    /// Entries read back from a stretch at a time.
    let blockSize: Int

    enum Stretch {
        /// Where it is in the scratch file.
        case written(offset: Int, count: Int)
        /// Kept in memory: it could not be written.
        case held([ReplayIndex.Entry])

        var count: Int {
            switch self {
            case .written(_, let count): count
            case .held(let entries): entries.count
            }
        }
    }

    init(directory: String?, blockSize: Int = 8192) {
        self.directory = directory
        self.blockSize = blockSize
    }

    /// Entries the index holds: on disk and in memory.
    var count: Int { stretches.reduce(0) { $0 + $1.count } }

    /// Writes one sorted stretch.
    /// - Returns: false when it could not be written (the stretch is then held in memory).
    @discardableResult
    func spill(_ sorted: [ReplayIndex.Entry]) -> Bool {
        guard !sorted.isEmpty else { return true }
        do {
            if scratch == nil { scratch = try ScratchFile(directory: directory) }
            let offset = try sorted.withUnsafeBytes { try scratch!.append($0) }
            stretches.append(.written(offset: offset, count: sorted.count))
            return true
        } catch {
            stretches.append(.held(sorted))
            return false
        }
    }

    /// The stretches merged into the engine's order.
    /// - Parameter id: reads back the id of an entry that shares its time with one of another stretch.
    /// - Throws: `FileError` when the scratch file cannot be read back; `SignInEventError` when
    ///   it holds less than was written to it.
    func merge(id: @escaping (ReplayIndex.Entry) -> String?) throws -> ReplayIndexMerge {
        var read = Array(repeating: 0, count: stretches.count)
        let stretches = self.stretches, scratch = self.scratch, blockSize = self.blockSize
        return try ReplayIndexMerge(stretches: stretches.count, refill: { n in
            switch stretches[n] {
            case .held(let entries):
                defer { read[n] = entries.count }
                return read[n] == 0 ? entries : []
            case .written(let offset, let count):
                let wanted = min(blockSize, count - read[n])
                guard wanted > 0, let scratch else { return [] }
                let block = try [ReplayIndex.Entry](unsafeUninitializedCapacity: wanted) { buffer, initialized in
                    let got = try scratch.read(into: UnsafeMutableRawBufferPointer(buffer), at: offset + read[n] * SpilledIndex.stride)
                    guard got == wanted * SpilledIndex.stride else {
                        throw SignInEventError("the replay's scratch file in \(scratch.directory) no longer holds what was written to it")
                    }
                    initialized = wanted
                }
                read[n] += wanted
                return block
            }
        }, id: id)
    }
}
