import TophhieJSON

/// One `field|modifiers: values` entry of a selection, compiled for matching.
package struct FieldCondition: Sendable, Hashable {
    /// The name as written in the rule (`ResultType`).
    public var sourceField: String
    /// The Graph v1.0 path it reads (`status.errorCode`).
    public var path: String
    public var modifiers: [ValueModifier]
    /// `path` split at its dots.
    package let components: [String]
    /// The entry's values, each as the test it makes: any holds (every one with `requireAll`).
    package let matchers: [ValueMatcher]
    /// `|all`: every value must hold.
    package let requireAll: Bool
    /// `|neq`: a present, non-null value none of the values holds for.
    package let negated: Bool
    /// Whether any text pattern compares case-sensitively (`cased` applies to the whole entry).
    package let anyCased: Bool

    package enum ValueMatcher: Sendable, Hashable {
        case null
        case text(WildcardPattern, number: Double?)
        case regex(RegexMatcher)
        case cidr(CIDRBlock)
        case compare(Comparison, Double)
        case exists(Bool)
        /// `|fieldref`: the other field's path components.
        case fieldRef([String], mode: FieldRefMode, caseSensitive: Bool)
    }

    package enum Comparison: String, Sendable, Hashable { case gt, gte, lt, lte }
    package enum FieldRefMode: Sendable, Hashable { case equal, contains, startsWith, endsWith }

    /// Compiles an entry.
    /// - Parameters:
    ///   - sourceField: the field as written; `path` is its Graph path after mapping.
    ///   - modifiers: the raw modifier names after the first `|`.
    ///   - values: one value, or the list's values.
    ///   - isList: whether the YAML held a list (`all` needs one).
    /// - Throws: `RuleCompileError` for unknown or clashing modifiers and values they cannot take.
    public init(sourceField: String, path: String, modifiers rawModifiers: [String], values: [RuleValue], isList: Bool) throws {
        self.sourceField = sourceField
        self.path = path
        self.components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var modifiers: [ValueModifier] = []
        for raw in rawModifiers {
            if let modifier = ValueModifier(rawValue: raw) ?? ValueModifier.aliases[raw] {
                guard !modifiers.contains(modifier) else { throw RuleCompileError("modifier '\(raw)' is given twice on '\(sourceField)'") }
                modifiers.append(modifier)
            } else if ValueModifier.recognisedButUnsupported.contains(raw) {
                throw RuleCompileError("modifier '\(raw)' is not supported by Tophhie Watch (supported: \(ValueModifier.allCases.map(\.rawValue).joined(separator: ", ")))")
            } else {
                throw RuleCompileError("unknown modifier '\(raw)' on '\(sourceField)'")
            }
        }
        self.modifiers = modifiers
        let has = Set(modifiers)
        let position = [ValueModifier.contains, .startswith, .endswith].filter(has.contains)
        let comparisons = [ValueModifier.gt, .gte, .lt, .lte].filter(has.contains)
        let kinds = [has.contains(.re), has.contains(.cidr), !comparisons.isEmpty, has.contains(.exists), has.contains(.fieldref)].filter { $0 }.count
        if position.count > 1 { throw RuleCompileError("'\(position.map(\.rawValue).joined(separator: "' and '"))' cannot be combined") }
        if comparisons.count > 1 { throw RuleCompileError("only one of gt, gte, lt, lte may be used") }
        if kinds > 1 || (kinds == 1 && !position.isEmpty && !has.contains(.fieldref)) {
            throw RuleCompileError("modifiers '\(rawModifiers.joined(separator: "|"))' cannot be combined")
        }
        for flag in [ValueModifier.i, .m, .s] where has.contains(flag) && !has.contains(.re) {
            throw RuleCompileError("'\(flag.rawValue)' is a flag of 're' and needs it")
        }
        if has.contains(.all) && !isList { throw RuleCompileError("'all' needs a list of values") }
        if has.contains(.exists) && has.count > 1 { throw RuleCompileError("'exists' takes no other modifier") }
        if values.isEmpty { throw RuleCompileError("'\(sourceField)' has an empty list of values") }
        let requireAll = has.contains(.all)
        let negated = has.contains(.neq)
        let cased = has.contains(.cased)

        var matchers: [ValueMatcher] = []
        for value in values {
            if has.contains(.exists) {
                guard case .bool(let b) = value else { throw RuleCompileError("'exists' takes true or false, not \(value)") }
                matchers.append(.exists(b))
            } else if value == .null {
                guard modifiers.allSatisfy({ $0 == .all || $0 == .neq }) else {
                    throw RuleCompileError("null cannot be used with '\(rawModifiers.joined(separator: "|"))'")
                }
                guard !isList else { throw RuleCompileError("null may not appear in a list of values; use a separate selection") }
                matchers.append(.null)
            } else if has.contains(.re) {
                guard case .string(let pattern) = value else { throw RuleCompileError("'re' takes a string pattern, not \(value)") }
                matchers.append(.regex(try RegexMatcher(pattern: pattern, ignoreCase: has.contains(.i), multiline: has.contains(.m), dotAll: has.contains(.s))))
            } else if has.contains(.cidr) {
                guard case .string(let block) = value else { throw RuleCompileError("'cidr' takes a network like '10.0.0.0/8', not \(value)") }
                matchers.append(.cidr(try CIDRBlock(block)))
            } else if let comparison = comparisons.first {
                guard let number = value.number else {
                    throw RuleCompileError("'\(comparison.rawValue)' takes a number, not \(value)")
                }
                matchers.append(.compare(Comparison(rawValue: comparison.rawValue)!, number))
            } else if has.contains(.fieldref) {
                guard case .string(let other) = value else { throw RuleCompileError("'fieldref' takes a field name, not \(value)") }
                let mapped = SignInFieldCatalog.resolve(other).path
                let mode: FieldRefMode = has.contains(.contains) ? .contains : has.contains(.startswith) ? .startsWith : has.contains(.endswith) ? .endsWith : .equal
                matchers.append(.fieldRef(mapped.split(separator: ".", omittingEmptySubsequences: false).map(String.init), mode: mode, caseSensitive: cased))
            } else {
                var text = value.text ?? ""
                if has.contains(.contains) { text = "*" + text + "*" }
                if has.contains(.startswith) { text += "*" }
                if has.contains(.endswith) { text = "*" + text }
                let number: Double? = { if case .string = value { return nil } else { return value.number } }()
                matchers.append(.text(WildcardPattern(sigma: text, caseSensitive: cased), number: number))
            }
        }
        self.matchers = matchers
        self.requireAll = requireAll
        self.negated = negated
        anyCased = matchers.contains { if case .text(let pattern, _) = $0 { return pattern.caseSensitive }; return false }
    }

    /// The Graph paths this entry reads: its field and any field it compares with.
    package var referencedPaths: [[String]] {
        [components] + matchers.compactMap { if case .fieldRef(let other, _, _) = $0 { return other }; return nil }
    }

    /// Whether the event satisfies this entry (`PlainMatching`).
    public func matches(_ event: any RuleEvent) -> Bool { PlainMatching.matches(self, event) }

    /// The texts a value offers for string matching: a scalar's text, each element of an array
    /// (`[]` for an empty one), and an object's canonical JSON (Sentinel matches `Status has "…"` on the serialised object).
    package static func texts(_ value: JSONValue) -> [String] {
        switch value {
        case .null: return []
        // An empty array offers its JSON text, so `'[]'` finds it as it does in Sentinel and in a
        // flattened table; a non-empty one offers its elements.
        case .array(let items) where items.isEmpty: return ["[]"]
        case .array(let items): return items.flatMap { item -> [String] in
            if case .array = item { return [String(decoding: item.canonicalData(), as: UTF8.self)] }
            return texts(item)
        }
        case .object: return [String(decoding: value.canonicalData(), as: UTF8.self)]
        default: return value.scalarText.map { [$0] } ?? []
        }
    }

    /// A number, reading numeric strings too (`"50053"`); booleans are not numbers.
    package static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .string(let s): return Double(s)
        default: return nil
        }
    }
}
