import YAMLReader

/// Compares a YAML node with an expected JSON value by meaning: core-schema numbers against JSON
/// numbers, nulls, bools, strings, sequences, and mappings regardless of key order (keys by their text).
func semanticallyMatches(_ node: YAMLNode, _ expected: TestJSON) -> Bool {
    switch (node.kind, expected) {
    case (.scalar(let scalar), _):
        switch (scalar.coreValue, expected) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .number(let text)):
            if let b = Int64(text) { return a == b }
            return Double(text) == Double(a)
        case (.float(let a), .number(let text)):
            return Double(text) == a
        case (.string(let a), .string(let b)): return a == b
        default: return false
        }
    case (.sequence(let items), .array(let expectedItems)):
        return items.count == expectedItems.count && zip(items, expectedItems).allSatisfy(semanticallyMatches)
    case (.mapping(let pairs), .object(let members)):
        guard pairs.count == members.count else { return false }
        return pairs.allSatisfy { pair in
            guard let key = pair.key.scalarText, let value = members[key] else { return false }
            return semanticallyMatches(pair.value, value)
        }
    default:
        return false
    }
}
