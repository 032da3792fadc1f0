/// Unicode simple case folding (CaseFolding.txt statuses C and S), as Rust's regex applies it for `(?i)`.
///
/// Simple folding maps one scalar to one scalar, so a case-insensitive pattern
/// still compiles to per-scalar sets; full folding (ß ↔ ss) would not, and is
/// deliberately not offered.
enum CaseFolding {
    /// Every scalar that folds together with `scalar`, including itself.
    static func variants(of scalar: UInt32) -> [UInt32] {
        guard let start = index(of: scalar) else { return [scalar] }
        var members = [scalar]
        var index = start
        while true {
            let next = caseFoldingNextMember[index]
            if next == scalar { break }
            members.append(next)
            guard let nextIndex = self.index(of: next) else { break }
            index = nextIndex
        }
        return members
    }

    /// Members of `set` that have case variants; walking the table is cheaper than walking large ranges.
    static func scalarsWithVariants(in set: ScalarSet) -> [UInt32] {
        var found: [UInt32] = []
        for range in set.ranges {
            var position = lowerBoundIndex(of: range.lowerBound)
            while position < caseFoldingScalars.count, caseFoldingScalars[position] <= range.upperBound {
                found.append(caseFoldingScalars[position])
                position += 1
            }
        }
        return found
    }

    private static func index(of scalar: UInt32) -> Int? {
        let position = lowerBoundIndex(of: scalar)
        guard position < caseFoldingScalars.count, caseFoldingScalars[position] == scalar else { return nil }
        return position
    }

    private static func lowerBoundIndex(of scalar: UInt32) -> Int {
        var low = 0
        var high = caseFoldingScalars.count
        while low < high {
            let middle = (low + high) / 2
            if caseFoldingScalars[middle] < scalar {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }
}
