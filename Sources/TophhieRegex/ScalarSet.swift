/// A set of Unicode scalar values kept as sorted, disjoint, non-adjacent ranges.
///
/// Classes, case-folded literals and `.` all compile to one of these, so the
/// matcher tests membership the same way for each.
struct ScalarSet: Sendable, Hashable {
    private(set) var ranges: [ClosedRange<UInt32>]

    static let maximumScalar: UInt32 = 0x10FFFF

    init() {
        ranges = []
    }

    init(_ scalar: UInt32) {
        ranges = [scalar...scalar]
    }

    init(ranges: [ClosedRange<UInt32>]) {
        self.ranges = []
        for range in ranges {
            insert(range)
        }
    }

    static var all: ScalarSet {
        ScalarSet(ranges: [0...maximumScalar])
    }

    var isEmpty: Bool { ranges.isEmpty }

    /// The sole member, when the set has exactly one, so the program can use a cheaper test.
    var singleScalar: UInt32? {
        guard ranges.count == 1, let only = ranges.first, only.lowerBound == only.upperBound else { return nil }
        return only.lowerBound
    }

    func contains(_ scalar: UInt32) -> Bool {
        // Most classes have a handful of ranges; a linear scan beats binary search there.
        if ranges.count <= 8 {
            for range in ranges where range.contains(scalar) {
                return true
            }
            return false
        }
        var low = 0
        var high = ranges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = ranges[middle]
            if scalar < range.lowerBound {
                high = middle - 1
            } else if scalar > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    mutating func insert(_ scalar: UInt32) {
        insert(scalar...scalar)
    }

    mutating func insert(_ range: ClosedRange<UInt32>) {
        var lower = range.lowerBound
        var upper = range.upperBound
        var merged: [ClosedRange<UInt32>] = []
        merged.reserveCapacity(ranges.count + 1)
        var placed = false
        for existing in ranges {
            // Ranges that overlap or touch the new one are absorbed into it.
            if existing.upperBound &+ 1 < lower {
                merged.append(existing)
            } else if upper &+ 1 < existing.lowerBound {
                if !placed {
                    merged.append(lower...upper)
                    placed = true
                }
                merged.append(existing)
            } else {
                lower = min(lower, existing.lowerBound)
                upper = max(upper, existing.upperBound)
            }
        }
        if !placed {
            merged.append(lower...upper)
        }
        ranges = merged
    }

    mutating func formUnion(_ other: ScalarSet) {
        for range in other.ranges {
            insert(range)
        }
    }

    /// Every scalar not in the set. Surrogates are never produced, since they are not scalars.
    func inverted() -> ScalarSet {
        var result: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for range in ranges {
            if range.lowerBound > next {
                result.append(next...(range.lowerBound - 1))
            }
            next = range.upperBound &+ 1
        }
        if next <= ScalarSet.maximumScalar {
            result.append(next...ScalarSet.maximumScalar)
        }
        return ScalarSet(ranges: result)
    }

    /// The set closed under simple case folding, for `(?i)`.
    func caseFolded() -> ScalarSet {
        var result = self
        for scalar in CaseFolding.scalarsWithVariants(in: self) {
            for variant in CaseFolding.variants(of: scalar) {
                result.insert(variant)
            }
        }
        return result
    }
}
