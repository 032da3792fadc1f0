import Foundation

/// A Graph path interned once, at rule load, as a small number: events read by slot, so a
/// field test at match time neither splits a dotted name nor hashes its components.
///
/// Slots are process-wide and only ever added (a few hundred at most: every path any loaded
/// rule names); numbering depends on load order, which nothing outside this process sees.
public struct FieldSlot: Sendable, Hashable {
    /// The slot's number, dense from 0.
    public let index: Int
    /// The path's components (`["status", "errorCode"]`), for events that are not read by slot.
    public let components: [String]

    public static func == (a: FieldSlot, b: FieldSlot) -> Bool { a.index == b.index }
    public func hash(into hasher: inout Hasher) { hasher.combine(index) }

    /// The slot of a path given as components, added when new.
    public static func intern(_ components: [String]) -> FieldSlot { FieldSlotTable.shared.intern(components) }

    /// The slot of a dotted path (`status.errorCode`), added when new.
    public static func intern(path: String) -> FieldSlot {
        intern(path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    /// The slot of a path already interned; nil for one no rule named.
    public static func existing(_ components: [String]) -> FieldSlot? { FieldSlotTable.shared.existing(components) }
}

/// The interning table behind `FieldSlot`: written at rule load, under a lock.
final class FieldSlotTable: @unchecked Sendable {
    static let shared = FieldSlotTable()
    private let lock = NSLock()
    private var slots: [[String]: FieldSlot] = [:]

    func intern(_ components: [String]) -> FieldSlot {
        lock.lock()
        defer { lock.unlock() }
        if let slot = slots[components] { return slot }
        let slot = FieldSlot(index: slots.count, components: components)
        slots[components] = slot
        return slot
    }

    func existing(_ components: [String]) -> FieldSlot? {
        lock.lock()
        defer { lock.unlock() }
        return slots[components]
    }
}
