import TophhieRules
/// One state table of per-rule tables (first-seen's baselines, travel's places), held by
/// correlation while a run goes on: out of the state's table of rules, so an event finds its
/// rule's table by place and not by hashing the rule's id. The tables go back when the run
/// ends (`settle`), before anything reads the state.
struct RuleTables<Value> {
    /// By correlation: the rule's table in this run, by group key with its hash (`HashedText`).
    var tables: [[HashedText: Value]]
    /// By correlation: whether the rule has a table in the state (kept even when emptied, as
    /// the state kept it).
    var kept: [Bool]

    /// Takes the tables of correlations `rules` out of `state`, each under its rule's id in `ids`.
    /// - Parameter count: the plan's number of correlations.
    init(count: Int, rules: [Int], ids: (Int) -> String, taking state: inout [String: [String: Value]]) {
        tables = Array(repeating: [:], count: count)
        kept = Array(repeating: false, count: count)
        for c in rules {
            guard let table = state.removeValue(forKey: ids(c)) else { continue }
            var held: [HashedText: Value] = [:]
            held.reserveCapacity(table.count)
            for (key, value) in table { held[HashedText(key)] = value }
            tables[c] = held
            kept[c] = true
        }
    }

    /// Puts the tables of correlations `rules` that are kept back into `state`.
    mutating func settle(_ rules: [Int], ids: (Int) -> String, into state: inout [String: [String: Value]]) {
        for c in rules where kept[c] {
            var table: [String: Value] = [:]
            table.reserveCapacity(tables[c].count)
            for (key, value) in tables[c] { table[key.text] = value }
            state[ids(c)] = table
            tables[c] = [:]
            kept[c] = false
        }
    }
}
