import YAMLReader

extension RuleDocumentReader {
    mutating func readDetection(_ node: YAMLNode, key: YAMLMark? = nil) -> Detection? {
        guard let pairs = node.mapping else {
            report(.error, node.mark, "'detection' must be a mapping of search identifiers and a 'condition'")
            return nil
        }
        var searches: [String: SearchIdentifier] = [:]
        var conditionNode: YAMLNode?
        var failed = false
        for pair in pairs {
            guard let name = pair.key.scalarText else { continue }
            if name == "condition" { conditionNode = pair.value; continue }
            if name == "timeframe" {
                report(.error, pair.key.mark, "'timeframe' with aggregations is obsolete Sigma; write a correlation rule instead")
                failed = true
                continue
            }
            if let search = readSearch(pair.value, name: name) { searches[name] = search } else { failed = true }
        }
        guard let conditionNode else {
            report(.error, key ?? node.mark, "'detection' has no 'condition'")
            return nil
        }
        var conditions: [ConditionExpression] = []
        let conditionNodes = conditionNode.sequence ?? [conditionNode]
        for item in conditionNodes {
            guard let scalar = item.scalar, !item.isNull else {
                report(.error, item.mark, "'condition' must be text such as 'selection and not filter'")
                return nil
            }
            if scalar.text.contains("|") {
                report(.error, item.mark, "aggregation in a condition ('| count() …') is obsolete Sigma; write a correlation rule instead")
                return nil
            }
            do {
                conditions.append(try ConditionParser.parse(scalar.text))
            } catch let error as ConditionSyntaxError {
                let singleLine = !scalar.text.contains("\n") && (scalar.style == .plain || scalar.style == .singleQuoted || scalar.style == .doubleQuoted)
                let offset = scalar.style == .plain ? 0 : 1
                let column = singleLine ? item.mark.column + offset + error.column - 1 : item.mark.column
                report(.error, YAMLMark(line: item.mark.line, column: column), "condition: \(error.message)")
                return nil
            } catch {
                return nil
            }
        }
        guard !failed else { return nil }
        do {
            return try Detection(searches: searches, conditions: conditions)
        } catch let error as RuleCompileError {
            report(.error, conditionNode.mark, error.message)
            return nil
        } catch {
            return nil
        }
    }

    mutating func readSearch(_ node: YAMLNode, name: String) -> SearchIdentifier? {
        if let pairs = node.mapping {
            return readFieldMap(pairs, at: node.mark).map { .allOf($0) }
        }
        if let items = node.sequence {
            if items.isEmpty {
                report(.error, node.mark, "search '\(name)' is an empty list")
                return nil
            }
            if items.allSatisfy({ $0.mapping != nil }) {
                var alternatives: [SearchIdentifier] = []
                for item in items {
                    guard let fields = readFieldMap(item.mapping!, at: item.mark) else { return nil }
                    alternatives.append(.allOf(fields))
                }
                return .anyOf(alternatives)
            }
            if items.allSatisfy({ $0.scalar != nil && !$0.isNull }) {
                report(.warning, node.mark, "search '\(name)' is a keyword list: it matches text anywhere in the sign-in, which is slow and imprecise; prefer named fields")
                return .keywords(items.map { WildcardPattern(sigma: "*" + ($0.scalarText ?? "") + "*") }, requireAll: false)
            }
            report(.error, node.mark, "search '\(name)' mixes maps and plain values; use a list of maps or a list of keywords")
            return nil
        }
        if let scalar = node.scalar, !node.isNull {
            report(.warning, node.mark, "search '\(name)' is a keyword: it matches text anywhere in the sign-in")
            return .keywords([WildcardPattern(sigma: "*" + scalar.text + "*")], requireAll: false)
        }
        report(.error, node.mark, "search '\(name)' must be a map of fields, a list of maps, or a list of keywords")
        return nil
    }

    mutating func readFieldMap(_ pairs: [YAMLPair], at mark: YAMLMark) -> [FieldCondition]? {
        if pairs.isEmpty {
            report(.error, mark, "an empty map matches everything; name at least one field")
            return nil
        }
        var conditions: [FieldCondition] = []
        var ok = true
        for pair in pairs {
            guard let key = pair.key.scalarText else { ok = false; continue }
            var parts = key.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            let field = parts.removeFirst()
            guard !field.isEmpty else {
                report(.error, pair.key.mark, "keyword searches with modifiers ('\(key)') are not supported; name a field")
                ok = false
                continue
            }
            var resolution = SignInFieldCatalog.resolve(field, schema: schema)
            var values: [RuleValue] = []
            var isList = false
            if let items = pair.value.sequence {
                isList = true
                for item in items {
                    guard let scalar = item.scalar else {
                        report(.error, item.mark, "values of '\(key)' must be plain values, not maps or lists")
                        ok = false
                        continue
                    }
                    values.append(RuleDocumentReader.ruleValue(scalar))
                }
            } else if let scalar = pair.value.scalar {
                values = [RuleDocumentReader.ruleValue(scalar)]
            } else {
                report(.error, pair.value.mark, "the value of '\(key)' must be a value or a list of values, not a map")
                ok = false
                continue
            }
            if field.lowercased() == "status", let status = Self.sentinelStatus(values, modifiers: parts) {
                // Sentinel's Status column: 'Success' is a success; a text search reads the
                // object's text, as Log Analytics' does (Entra writes "MFA denied; …" inside).
                (resolution, values) = status
            } else if resolution.unknown && refuseUnknownFields && !allowsUnknownFields {
                // A misspelt field loads as a rule that never fires: told as an error.
                let meant = SignInFieldCatalog.nearestPath(to: field).map { "did you mean '\($0)'? " } ?? ""
                report(.error, pair.key.mark, "field '\(field)' does not exist in the Graph signIn resource (beta or v1.0), so this rule could never fire; \(meant)set 'tophhie: {allow-unknown-fields: true}' if the rule means it")
                ok = false
                continue
            } else if let warning = resolution.warning {
                report(.warning, pair.key.mark, warning)
            }
            if let expand = parts.firstIndex(of: "expand") {
                parts.remove(at: expand)
                values = values.flatMap { value -> [RuleValue] in
                    guard case .string(let text) = value, let name = RulePlaceholders.name(in: text) else { return [value] }
                    if let given = placeholders.values[name] { return given.map(RuleValue.string) }
                    if !RulePlaceholders.known.contains(name) {
                        report(.warning, pair.value.mark, "placeholder '%\(name)%' has no value (known: \(RulePlaceholders.known.sorted().map { "%\($0)%" }.joined(separator: ", "))); it matches only its own text")
                    }
                    return [value]
                }
                isList = isList || values.count > 1
            }
            do {
                conditions.append(try FieldCondition(sourceField: field, path: resolution.path, modifiers: parts, values: values, isList: isList))
            } catch let error as RuleCompileError {
                let pointAtKey = error.message.contains("modifier") || error.message.contains("combined") || error.message.contains("'all'")
                report(.error, pointAtKey ? pair.key.mark : pair.value.mark, error.message)
                ok = false
            } catch {
                ok = false
            }
        }
        return ok ? conditions : nil
    }

    /// SigmaHQ's `Status: 'Success'` and `Status|contains: 'MFA Denied'`, written for Log
    /// Analytics' Status column, as Graph fields: `status.errorCode: 0` for a success; a text
    /// search reads the `status` object's text (errorCode, failureReason, additionalDetails), as
    /// Sentinel's does, without the warning a plain value on an object gets. Nil leaves the field
    /// as it is.
    static func sentinelStatus(_ values: [RuleValue], modifiers: [String]) -> (SignInFieldCatalog.Resolution, [RuleValue])? {
        let texts = values.compactMap { value -> String? in if case .string(let text) = value { return text } else { return nil } }
        guard texts.count == values.count, !texts.isEmpty else { return nil }
        if modifiers.isEmpty, texts.allSatisfy({ $0.lowercased() == "success" }) {
            return (SignInFieldCatalog.Resolution(path: "status.errorCode", warning: nil), [.int(0)])
        }
        let textModifiers: Set<String> = ["contains", "startswith", "endswith", "re", "all", "i", "cased"]
        guard !modifiers.isEmpty, modifiers.allSatisfy({ textModifiers.contains($0) }) else { return nil }
        return (SignInFieldCatalog.Resolution(path: "status", warning: nil), values)
    }
}
