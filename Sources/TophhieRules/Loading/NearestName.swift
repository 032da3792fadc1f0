/// The known name a misspelt one was meant to be: `levle` is `level`, `supress` is `suppress`.
package enum NearestName {
    /// The name among `known` within an edit of `name` (a letter inserted, removed, changed, or
    /// two swapped, case aside), or two for names of six letters or more; the closest first. Nil
    /// when none is that close, or `name` is shorter than four letters: short words are that
    /// close to too many others (`note` is two edits from `name`).
    package static func nearest(_ name: String, among known: [String]) -> String? {
        guard name.count >= 4 else { return nil }
        let word = Array(name.lowercased())
        let allowed = word.count >= 6 ? 2 : 1
        return known.map { ($0, distance(word, Array($0.lowercased()))) }
            .filter { $0.1 <= allowed }
            .min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
    }

    /// Edits from `a` to `b`, a swap of two neighbours counting as one (optimal string alignment).
    package static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
