import Foundation
import TophhieJSON
import TophhieRules

/// A sign-in's slot values in one allocation of their own (`SlotEvent`), freed by a loop made
/// for their type, with the layout they were read into.
///
/// Not a `[JSONValue?]`: an array's storage is freed by the standard library's generic code,
/// which destroys each element through its type's metadata, about 120 instructions a value,
/// and freeing each batch's sign-ins was a ninth of a replay's reading thread.
final class SlotValues: ManagedBuffer<SlotValues.Header, JSONValue?> {
    struct Header {
        let count: Int
        /// Held here so an event can point into it without holding it (`SlotEvent.places`): a
        /// copy of an event then retains one object, not two.
        let layout: EventLayout?
        /// Every string of the record, when the layout keeps them (`EventLayout.keepsKeywordTexts`).
        var keywordTexts: [String]?
    }

    /// `count` slots, all nil, filled by `fill` (which may throw: the values are then freed).
    /// - Parameter layout: the layout the values are read into, kept alive by them.
    /// - Complexity: O(count).
    static func make(count: Int, layout: EventLayout? = nil, fill: (UnsafeMutableBufferPointer<JSONValue?>) throws -> Void) rethrows -> SlotValues {
        try make(count: count, extra: 0, layout: layout, fill: fill, take: { _ in })
    }

    /// `make`, `fill` given `extra` slots more after the kept ones: values read in the same walk
    /// and not kept, which `take` reads (with the kept ones before them) before they are freed.
    static func make(count: Int, extra: Int, layout: EventLayout? = nil, fill: (UnsafeMutableBufferPointer<JSONValue?>) throws -> Void,
                     take: (UnsafeBufferPointer<JSONValue?>) -> Void) rethrows -> SlotValues {
        let total = count + extra
        let made = unsafeDowncast(SlotValues.create(minimumCapacity: total) { _ in Header(count: count, layout: layout, keywordTexts: nil) }, to: SlotValues.self)
        try made.withUnsafeMutablePointerToElements { elements in
            elements.initialize(repeating: nil, count: total)
            // Only the kept ones are freed with the values.
            defer { (elements + count).deinitialize(count: extra) }
            try fill(UnsafeMutableBufferPointer(start: elements, count: total))
            take(UnsafeBufferPointer(start: elements, count: total))
        }
        return made
    }

    /// How many slots there are.
    var count: Int { header.count }

    /// The value of slot `place`, nil when absent.
    @inline(__always) subscript(place: Int) -> JSONValue? {
        withUnsafeMutablePointerToElements { $0[place] }
    }

    /// Runs `body` with the values, lent for the call.
    @inline(__always) func withValues<T>(_ body: (UnsafeBufferPointer<JSONValue?>) throws -> T) rethrows -> T {
        try withUnsafeMutablePointers { header, elements in try body(UnsafeBufferPointer(start: elements, count: header.pointee.count)) }
    }

    deinit {
        // Each value dropped where its type is known, not by a destroy of the whole run.
        withUnsafeMutablePointers { header, elements in
            JSONValue.dropSlots(UnsafeMutableBufferPointer(start: elements, count: header.pointee.count))
        }
    }
}
