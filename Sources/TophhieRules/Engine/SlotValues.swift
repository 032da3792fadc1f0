import Foundation
import TophhieJSON

/// A sign-in's slot values in one allocation of their own (`SlotEvent`), freed by a loop made
/// for their type.
///
/// Not a `[JSONValue?]`: an array's storage is freed by the standard library's generic code,
/// which destroys each element through its type's metadata, about 120 instructions a value,
/// and freeing each batch's sign-ins was a ninth of a replay's reading thread.
final class SlotValues: ManagedBuffer<Int, JSONValue?> {
    /// `count` slots, all nil, filled by `fill` (which may throw: the values are then freed).
    /// - Complexity: O(count).
    static func make(count: Int, fill: (UnsafeMutableBufferPointer<JSONValue?>) throws -> Void) rethrows -> SlotValues {
        let made = unsafeDowncast(SlotValues.create(minimumCapacity: count) { _ in count }, to: SlotValues.self)
        try made.withUnsafeMutablePointerToElements { elements in
            elements.initialize(repeating: nil, count: count)
            try fill(UnsafeMutableBufferPointer(start: elements, count: count))
        }
        return made
    }

    /// How many slots there are.
    var count: Int { header }

    /// The value of slot `place`, nil when absent.
    @inline(__always) subscript(place: Int) -> JSONValue? {
        withUnsafeMutablePointerToElements { $0[place] }
    }

    /// Runs `body` with the values, lent for the call.
    @inline(__always) func withValues<T>(_ body: (UnsafeBufferPointer<JSONValue?>) throws -> T) rethrows -> T {
        try withUnsafeMutablePointerToElements { try body(UnsafeBufferPointer(start: $0, count: header)) }
    }

    deinit {
        // Each value moved out and dropped here, where its type is known: a destroy of the
        // whole run (`deinitialize(count:)`) goes through the generic runtime again.
        withUnsafeMutablePointers { count, elements in
            for place in 0..<count.pointee { _ = (elements + place).move() }
        }
    }
}
