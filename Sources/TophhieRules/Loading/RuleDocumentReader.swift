import YAMLReader

/// Reads one YAML document into a rule, collecting diagnostics instead of stopping at the first.
struct RuleDocumentReader {
    let file: String
    var diagnostics: [RuleDiagnostic] = []
    var placeholders = RulePlaceholders()
    /// The Graph version whose fields the rules are checked against.
    var schema = SignInSchema.beta
    /// A value test on a field neither version has is an error (the agent's loading), not a
    /// warning (replay and `rules match` over other people's rule sets).
    var refuseUnknownFields = false
    /// The document being read says it means such fields (`tophhie: {allow-unknown-fields: true}`).
    var allowsUnknownFields = false

    init(file: String) { self.file = file }

    enum Outcome {
        case detection(DetectionRule)
        case correlation(CorrelationRule)
        case skipped
        case failed
    }

    mutating func report(_ severity: RuleDiagnostic.Severity, _ mark: YAMLMark, _ message: String) {
        diagnostics.append(RuleDiagnostic(severity, file: file, line: mark.line, column: mark.column, message: message))
    }

    /// The top-level keys Sigma's specification defines, with this project's `tophhie`.
    static let sigmaKeys = ["title", "id", "name", "related", "taxonomy", "status", "description", "license", "author",
                            "references", "date", "modified", "logsource", "detection", "fields", "falsepositives", "level",
                            "tags", "scope", "correlation", "filter", "generate", "tophhie"]

    mutating func read(_ document: YAMLNode, index: Int) -> Outcome {
        guard let pairs = document.mapping else {
            if document.isNull { return .skipped }
            report(.error, document.mark, "a rule document must be a mapping of keys (title, id, detection…)")
            return .failed
        }
        var keys = Set<String>()
        for pair in pairs { if let k = pair.key.scalarText { keys.insert(k) } }
        if keys.contains("filter") && !keys.contains("detection") {
            report(.note, document.mark, "Sigma meta-filter skipped: filters are not supported")
            return .skipped
        }
        let errorsBefore = diagnostics.filter { $0.severity == .error }.count
        // Sigma lets a rule carry keys of its own; one a letter or two from a key Sigma defines
        // is a misspelling, and the rule would run without what it meant (`levle: high`).
        for pair in pairs {
            guard let key = pair.key.scalarText, !RuleDocumentReader.sigmaKeys.contains(key),
                  let meant = NearestName.nearest(key, among: RuleDocumentReader.sigmaKeys) else { continue }
            report(.error, pair.key.mark, "unknown key '\(key)': did you mean '\(meant)'?")
        }
        guard var metadata = readMetadata(document, index: index) else { return .failed }
        let options = readOptions(document)
        if let correlation = document.mappingValue(forKey: "correlation") {
            guard let rule = readCorrelation(correlation, metadata: metadata, options: options) else { return .failed }
            return diagnostics.filter({ $0.severity == .error }).count > errorsBefore ? .failed : .correlation(rule)
        }
        guard let detectionNode = document.mappingValue(forKey: "detection") else {
            report(.error, document.mark, "a rule needs either 'detection' or 'correlation'")
            return .failed
        }
        if let logsource = document.mappingValue(forKey: "logsource") {
            let product = logsource.mappingValue(forKey: "product")?.scalarText?.lowercased()
            let service = logsource.mappingValue(forKey: "service")?.scalarText?.lowercased()
            if logsource.mapping == nil {
                report(.error, logsource.mark, "'logsource' must be a mapping (product, service…)")
                return .failed
            }
            if product != "azure" || service != "signinlogs" {
                let described = (logsource.mapping ?? []).compactMap { pair -> String? in
                    guard let k = pair.key.scalarText, let v = pair.value.scalarText else { return nil }
                    return "\(k): \(v)"
                }.joined(separator: ", ")
                report(.note, logsource.mark, "rule '\(metadata.title)' skipped: logsource {\(described)} is not Azure sign-in logs (product: azure, service: signinlogs)")
                return .skipped
            }
        }
        metadata.line = document.mark.line
        guard let detection = readDetection(detectionNode, key: document.mappingKey("detection")?.mark) else { return .failed }
        if diagnostics.filter({ $0.severity == .error }).count > errorsBefore { return .failed }
        return .detection(DetectionRule(metadata: metadata, detection: detection, options: options))
    }

    // MARK: metadata

    mutating func readMetadata(_ document: YAMLNode, index: Int) -> RuleMetadata? {
        guard let titleNode = document.mappingValue(forKey: "title") else {
            report(.error, document.mark, "missing 'title'")
            return nil
        }
        guard let title = string(titleNode, "title") else { return nil }
        var id = document.mappingValue(forKey: "id").flatMap { string($0, "id") }
        let name = document.mappingValue(forKey: "name").flatMap { string($0, "name") }
        if id == nil {
            let base = (file.split(separator: "/").last.map(String.init) ?? file).replacingOccurrences(of: ".yml", with: "").replacingOccurrences(of: ".yaml", with: "")
            id = name ?? (index == 0 ? base : "\(base)#\(index + 1)")
            report(.warning, document.mark, "rule '\(title)' has no 'id'; using '\(id!)'")
        }
        var level = AlertLevel.medium
        if let levelNode = document.mappingValue(forKey: "level") {
            if let text = levelNode.scalarText, let parsed = AlertLevel(rawValue: text.lowercased()) {
                level = parsed
            } else {
                report(.error, levelNode.mark, "'level' must be one of \(AlertLevel.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        var tags: [String] = []
        if let tagsNode = document.mappingValue(forKey: "tags") {
            if let items = tagsNode.sequence {
                tags = items.compactMap { string($0, "tags") }
            } else {
                report(.error, tagsNode.mark, "'tags' must be a list")
            }
        }
        let author = document.mappingValue(forKey: "author").flatMap { $0.scalarText }
        let description = document.mappingValue(forKey: "description").flatMap { $0.scalarText }
        let status = document.mappingValue(forKey: "status").flatMap { $0.scalarText }
        return RuleMetadata(id: id!, name: name, title: title, level: level, status: status, description: description,
                            author: author, tags: tags, file: file, line: document.mark.line)
    }

    mutating func readOptions(_ document: YAMLNode) -> RuleEngineOptions {
        var options = RuleEngineOptions()
        allowsUnknownFields = false
        guard let node = document.mappingValue(forKey: "tophhie") else { return options }
        guard let pairs = node.mapping else {
            report(.error, node.mark, "'tophhie' must be a mapping (suppress, group-by, level, summary, allow-unknown-fields)")
            return options
        }
        for pair in pairs {
            switch pair.key.scalarText {
            case "suppress":
                if let d = duration(pair.value, "suppress") { options.suppress = d }
            case "group-by":
                if let fields = strings(pair.value, "tophhie.group-by") {
                    if fields.isEmpty || fields.contains(where: \.isEmpty) {
                        report(.error, pair.value.mark, "'tophhie.group-by' must name at least one field")
                    } else {
                        options.groupBy = fields
                    }
                }
            case "level":
                if let text = pair.value.scalarText, let level = AlertLevel(rawValue: text.lowercased()) {
                    options.level = level
                } else {
                    report(.error, pair.value.mark, "'tophhie.level' must be one of \(AlertLevel.allCases.map(\.rawValue).joined(separator: ", "))")
                }
            case "summary":
                guard let template = pair.value.scalarText, !pair.value.isNull, !template.isEmpty else {
                    report(.error, pair.value.mark, "'tophhie.summary' must be a text: the sentence a person reads, with {place}, {app}… for values")
                    break
                }
                do { options.summary = try AlertSentence(template: template) } catch {
                    report(.error, pair.value.mark, "'tophhie.summary': \(error.message)")
                }
            case "allow-unknown-fields":
                if let value = pair.value.scalarText, ["true", "false"].contains(value.lowercased()) {
                    allowsUnknownFields = value.lowercased() == "true"
                } else {
                    report(.error, pair.value.mark, "'tophhie.allow-unknown-fields' must be true or false")
                }
            default:
                let key = pair.key.scalarText ?? "?"
                let known = ["suppress", "group-by", "level", "summary", "allow-unknown-fields"]
                let meant = NearestName.nearest(key, among: known).map { ": did you mean '\($0)'?" } ?? ""
                report(.error, pair.key.mark, "unknown engine setting 'tophhie.\(key)'\(meant) (known: \(known.joined(separator: ", ")))")
            }
        }
        return options
    }

    // MARK: scalar helpers

    mutating func string(_ node: YAMLNode, _ what: String) -> String? {
        guard let scalar = node.scalar, !node.isNull else {
            report(.error, node.mark, "'\(what)' must be a text value")
            return nil
        }
        return scalar.text
    }

    mutating func duration(_ node: YAMLNode, _ what: String) -> RuleDuration? {
        guard let text = node.scalarText, let d = RuleDuration.parse(text) else {
            report(.error, node.mark, "'\(what)' must be a duration like 30s, 10m, 2h or 14d")
            return nil
        }
        return d
    }

    mutating func integer(_ node: YAMLNode, _ what: String) -> Int? {
        guard case .int(let i)? = node.scalar?.coreValue.intIfPlain(node), i >= 0, i <= Int64(Int32.max) else {
            report(.error, node.mark, "'\(what)' must be a whole number")
            return nil
        }
        return Int(i)
    }

    mutating func number(_ node: YAMLNode, _ what: String) -> Double? {
        switch node.scalar.map({ node.scalar!.style == .plain ? $0.coreValue : .string($0.text) }) {
        case .int(let i)?: return Double(i)
        case .float(let d)? where d.isFinite: return d
        default:
            report(.error, node.mark, "'\(what)' must be a number")
            return nil
        }
    }

    mutating func strings(_ node: YAMLNode, _ what: String) -> [String]? {
        if let items = node.sequence {
            var result: [String] = []
            for item in items {
                guard let s = string(item, what) else { return nil }
                result.append(s)
            }
            return result
        }
        return string(node, what).map { [$0] }
    }

    static func ruleValue(_ scalar: YAMLScalar) -> RuleValue {
        guard scalar.style == .plain else { return .string(scalar.text) }
        switch scalar.coreValue {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .float(let d): return .double(d)
        case .string(let s): return .string(s)
        }
    }
}

extension YAMLCoreValue {
    /// The value when the node is a plain scalar; quoted numbers stay text.
    func intIfPlain(_ node: YAMLNode) -> YAMLCoreValue? {
        node.scalar?.style == .plain ? self : nil
    }
}
