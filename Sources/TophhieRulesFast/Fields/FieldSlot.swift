import Foundation
import TophhieRules

/// A Graph path interned once, at rule load, as a small number: events read by slot, so a
/// field test at match time neither splits a dotted name nor hashes its components.
///
/// Slots are process-wide and only ever added (a few hundred at most: every path any loaded
/// rule names); numbering depends on load order, which nothing outside this process sees.
///
/// Plain data to copy: the components are reached through a reference the table keeps for the
/// life of the process, not counted. With the components' array in the value, every copy of a
/// slot (out of a rule's lists, for every event and rule) retained and released it.
package struct FieldSlot: @unchecked Sendable, Hashable {
    /// The slot's number, dense from 0.
    package let index: Int
    private unowned(unsafe) let path: FieldSlotTable.Path

    /// The path's components (`["status", "errorCode"]`), for events that are not read by slot.
    package var components: [String] { path.components }

    fileprivate init(index: Int, path: FieldSlotTable.Path) {
        self.index = index
        self.path = path
    }

    package static func == (a: FieldSlot, b: FieldSlot) -> Bool { a.index == b.index }
    package func hash(into hasher: inout Hasher) { hasher.combine(index) }

    /// The slot of a path given as components, added when new.
    package static func intern(_ components: [String]) -> FieldSlot { FieldSlotTable.shared.intern(components) }

    /// The slot of a dotted path (`status.errorCode`), added when new.
    package static func intern(path: String) -> FieldSlot {
        intern(path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    /// The slot of a path already interned; nil for one no rule named.
    package static func existing(_ components: [String]) -> FieldSlot? { FieldSlotTable.shared.existing(components) }
}

/// The interning table behind `FieldSlot`: written at rule load, under a lock.
final class FieldSlotTable: @unchecked Sendable {
    /// A slot's components, kept by the table for the life of the process (slots are never
    /// removed), so slots refer to it without counting.
    final class Path: Sendable {
        let components: [String]
        init(_ components: [String]) { self.components = components }
    }

    static let shared = FieldSlotTable()
    private let lock = NSLock()
    private var slots: [[String]: FieldSlot] = [:]
    private var paths: [Path] = []

    func intern(_ components: [String]) -> FieldSlot {
        lock.lock()
        defer { lock.unlock() }
        if let slot = slots[components] { return slot }
        let path = Path(components)
        paths.append(path)
        let slot = FieldSlot(index: slots.count, path: path)
        slots[components] = slot
        return slot
    }

    func existing(_ components: [String]) -> FieldSlot? {
        lock.lock()
        defer { lock.unlock() }
        return slots[components]
    }
}
