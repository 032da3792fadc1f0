import Testing
@testable import TophhieJSON

/// A text put together from pieces is the pieces joined, as `+` would join them, whether it fits
/// the stack's room or not.
@Suite struct TextAssemblyTests {
    /// Numbers are written as `String(_:)` writes them, at their edges too.
    @Test func numbersAreTheirDecimalText() {
        let numbers: [Int64] = [0, 1, -1, 9, 10, -10, 6, 50_126, 1_000_000_000_000_000_000, .max, .min, .min + 1]
        for number in numbers {
            #expect(TextAssembly.make { $0.append(number) } == String(number))
            #expect(TextAssembly.make { $0.append("error "); $0.append(number); $0.append(" x") } == "error \(number) x")
        }
    }

    /// Pieces past the stack's room (an app's name is the attacker's to choose) are all kept.
    @Test func piecesPastTheRoomAreKept() {
        let long = String(repeating: "ü", count: TextAssembly.stackBytes)
        let made = TextAssembly.make { text in
            text.append("from ")
            text.append(long)
            text.append(long.dropFirst(3))
            text.append(Int64.min)
        }
        #expect(made == "from " + long + long.dropFirst(3) + String(Int64.min))
    }
}
