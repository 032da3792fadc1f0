import Foundation
import TophhieTestSupport
import Testing
@testable import TophhieRules
@testable import TophhieRulesFast

/// A slot is copied as plain data and reaches its path through the table, which keeps every
/// path for the life of the process: each slot must read its own path, however it was made.
@Suite struct FieldSlotTests {
    @Test func everySlotReadsItsOwnPathWhereverItWasInterned() async {
        let paths = (0..<200).map { ["fieldSlotTests", "p\($0)", "leaf"] }
        // Interned from many tasks at once, as rule sets loaded side by side do.
        let slots = await withTaskGroup(of: (Int, FieldSlot).self) { group in
            for (i, path) in paths.enumerated() { group.addTask { (i, FieldSlot.intern(path)) } }
            var found = [FieldSlot?](repeating: nil, count: paths.count)
            for await (i, slot) in group { found[i] = slot }
            return found.compactMap { $0 }
        }
        #expect(slots.count == paths.count)
        #expect(Set(slots.map(\.index)).count == paths.count, "one slot a path")
        for (i, slot) in slots.enumerated() {
            let copy = slot
            #expect(copy.components == paths[i])
            #expect(FieldSlot.intern(paths[i]) == slot)
            #expect(FieldSlot.existing(paths[i])?.components == paths[i])
            #expect(FieldSlot.intern(path: paths[i].joined(separator: ".")).index == slot.index)
        }
        #expect(FieldSlot.existing(["fieldSlotTests", "never interned"]) == nil)
    }
}
