/// A set of instruction indices with O(1) insert, lookup and clear (Briggs & Torczon),
/// which keeps each step of the matcher proportional to the program, not to its history.
struct SparseSet {
    private(set) var members: [Int]
    private var positions: [Int]
    private(set) var count = 0

    init(capacity: Int) {
        members = Array(repeating: 0, count: capacity)
        positions = Array(repeating: 0, count: capacity)
    }

    func contains(_ value: Int) -> Bool {
        let position = positions[value]
        return position < count && members[position] == value
    }

    /// Returns false if `value` was already present.
    @discardableResult
    mutating func insert(_ value: Int) -> Bool {
        if contains(value) { return false }
        members[count] = value
        positions[value] = count
        count += 1
        return true
    }

    mutating func removeAll() {
        count = 0
    }
}
