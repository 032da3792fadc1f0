import YAMLReader

/// Turns rule files into a `RuleSet`, with every problem as a located diagnostic.
///
/// A file that does not parse as YAML, or a rule with an error, is left out of the set; the
/// others load. Cross-file checks (duplicate ids, unknown or cyclic references) run last.
public enum RuleLoader {
    /// Loads every source and checks references across them.
    /// - Parameters:
    ///   - placeholders: values for `|expand` placeholders.
    ///   - schema: the Graph version the rules will read: a field it lacks is warned of.
    ///   - refuseUnknownFields: a value test on a field neither Graph version has is an error
    ///     unless the rule allows it (the agent, `rules check`); else a warning (replay and
    ///     `rules match` over rule sets written for other sources).
    package static func load(_ sources: [RuleSource], placeholders: RulePlaceholders = RulePlaceholders(), schema: SignInSchema = .beta, refuseUnknownFields: Bool = false) -> RuleSet {
        var set = RuleSet()
        for source in sources { set.merge(loadFile(source, placeholders: placeholders, schema: schema, refuseUnknownFields: refuseUnknownFields)) }
        return link(set)
    }

    /// Loads one file's documents without cross-file checks.
    package static func loadFile(_ source: RuleSource, placeholders: RulePlaceholders = RulePlaceholders(), schema: SignInSchema = .beta, refuseUnknownFields: Bool = false) -> RuleSet {
        var reader = RuleDocumentReader(file: source.path)
        reader.placeholders = placeholders
        reader.schema = schema
        reader.refuseUnknownFields = refuseUnknownFields
        let documents: [YAMLNode]
        do {
            documents = try YAMLReader.documents(source.text)
        } catch let error as YAMLError {
            reader.report(.error, error.mark, error.message)
            return RuleSet(diagnostics: reader.diagnostics)
        } catch {
            reader.report(.error, YAMLMark(line: 1, column: 1), String(describing: error))
            return RuleSet(diagnostics: reader.diagnostics)
        }
        var detections: [DetectionRule] = []
        var correlations: [CorrelationRule] = []
        var skipped = 0
        for (index, document) in documents.enumerated() {
            switch reader.read(document, index: index) {
            case .detection(let rule): detections.append(rule)
            case .correlation(let rule): correlations.append(rule)
            case .skipped: skipped += 1
            case .failed: break
            }
        }
        return RuleSet(detections: detections, correlations: correlations, diagnostics: reader.diagnostics, skippedCount: skipped)
    }

    /// Drops rules whose ids clash or whose references cannot be resolved, with errors saying why.
    static func link(_ set: RuleSet) -> RuleSet {
        var diagnostics = set.diagnostics
        func error(_ meta: RuleMetadata, _ message: String) {
            diagnostics.append(RuleDiagnostic(.error, file: meta.file, line: meta.line, column: 1, message: message))
        }
        var owners: [String: RuleMetadata] = [:]
        var detections: [DetectionRule] = []
        var correlations: [CorrelationRule] = []
        func claim(_ meta: RuleMetadata) -> Bool {
            for key in [meta.id] + (meta.name.map { [$0] } ?? []) {
                if let other = owners[key], other != meta {
                    error(meta, "rule id or name '\(key)' is already used by '\(other.title)' at \(other.file):\(other.line)")
                    return false
                }
            }
            owners[meta.id] = meta
            if let name = meta.name { owners[name] = meta }
            return true
        }
        for rule in set.detections where claim(rule.metadata) { detections.append(rule) }
        for rule in set.correlations where claim(rule.metadata) { correlations.append(rule) }

        let detectionKeys = Set(detections.flatMap { [$0.metadata.id] + ($0.metadata.name.map { [$0] } ?? []) })
        // Iterate until stable: dropping one correlation may orphan another that references it.
        var changed = true
        while changed {
            changed = false
            let correlationKeys = Dictionary(correlations.flatMap { c in ([c.metadata.id] + (c.metadata.name.map { [$0] } ?? [])).map { ($0, c) } }, uniquingKeysWith: { a, _ in a })
            var kept: [CorrelationRule] = []
            for rule in correlations {
                var ok = true
                for reference in rule.rules {
                    if detectionKeys.contains(reference) { continue }
                    if let inner = correlationKeys[reference] {
                        switch (rule.kind, inner.kind) {
                        case (.firstSeen, _), (.impossibleTravel, _):
                            error(rule.metadata, "'\(rule.kind.name)' correlations take detection rules, but '\(reference)' is a correlation")
                            ok = false
                        case (_, .firstSeen), (_, .impossibleTravel):
                            error(rule.metadata, "'\(reference)' is a \(inner.kind.name) rule and cannot feed another correlation")
                            ok = false
                        default:
                            if reaches(from: inner, to: rule.metadata.id, in: correlationKeys, depth: 0) {
                                error(rule.metadata, "correlation '\(rule.metadata.id)' references itself through '\(reference)'")
                                ok = false
                            }
                        }
                        continue
                    }
                    error(rule.metadata, "correlation '\(rule.metadata.id)' references '\(reference)', which is not a loaded rule id or name")
                    ok = false
                }
                if ok { kept.append(rule) } else { changed = true }
            }
            correlations = kept
        }
        return RuleSet(detections: detections, correlations: correlations, diagnostics: diagnostics, skippedCount: set.skippedCount)
    }

    static func reaches(from rule: CorrelationRule, to target: String, in keys: [String: CorrelationRule], depth: Int) -> Bool {
        guard depth < 32 else { return true }
        for reference in rule.rules {
            if reference == target { return true }
            if let inner = keys[reference], reaches(from: inner, to: target, in: keys, depth: depth + 1) { return true }
        }
        return false
    }
}
