import Foundation

/// A rule a correlation refers to: a detection or a correlation, by its place in the rule set.
package enum RuleReference: Sendable, Hashable {
    case detection(Int)
    case correlation(Int)
}

/// What every evaluator works out once from a rule set: which rule refers to which, which alert
/// on their own, in what order windowed correlations go, which values stored events keep.
package struct RuleGraph: Sendable {
    package let detections: [DetectionRule]
    package let correlations: [CorrelationRule]
    /// A detection's place by its id or name (the first of each).
    package let detectionIndex: [String: Int]
    /// A correlation's place by its id or name (the first of each).
    package let correlationIndex: [String: Int]
    /// By correlation, its references in `rules` order, unresolvable names dropped.
    package let references: [[RuleReference]]
    package let standaloneDetections: Set<Int>
    package let standaloneCorrelations: Set<Int>
    /// Detections whose matches windowed correlations count (through chains too).
    package let fedDetections: Set<Int>
    /// Windowed correlations, every inner one before the chains that refer to it.
    package let windowed: [Int]
    package let firstSeen: [Int]
    package let travel: [Int]
    /// The Graph paths a stored event keeps: what alerts show and windows group and count by.
    package let keptPaths: [String]
    /// Lookback plus the longest window or travel timespan.
    package let horizon: TimeInterval
    /// Every Graph path a rule or an evaluator reads from a sign-in (its id and time, travel's
    /// coordinates, the kept, grouped, first-seen and tested fields), keyword searches apart.
    package let readPaths: [[String]]
    /// Whether a keyword search reads every string of a sign-in.
    package let hasKeywordSearch: Bool

    /// The paths of a sign-in the evaluators read; nil when a keyword search reads all of it.
    package var eventPaths: [[String]]? { hasKeywordSearch ? nil : readPaths }

    /// Travel's coordinates.
    package static let latitudePath = ["location", "geoCoordinates", "latitude"]
    package static let longitudePath = ["location", "geoCoordinates", "longitude"]

    package init(_ set: RuleSet, settings: EngineSettings) {
        detections = set.detections
        correlations = set.correlations
        func index<Rule>(_ rules: [Rule], _ metadata: (Rule) -> RuleMetadata) -> [String: Int] {
            var found: [String: Int] = [:]
            for (i, rule) in rules.enumerated() {
                found[metadata(rule).id] = found[metadata(rule).id] ?? i
                if let name = metadata(rule).name { found[name] = found[name] ?? i }
            }
            return found
        }
        let detectionIndex = index(set.detections, \.metadata), correlationIndex = index(set.correlations, \.metadata)
        self.correlationIndex = correlationIndex
        self.detectionIndex = detectionIndex
        let references: [[RuleReference]] = set.correlations.map { rule in
            rule.rules.compactMap { name in
                detectionIndex[name].map { .detection($0) } ?? correlationIndex[name].map { .correlation($0) }
            }
        }
        self.references = references
        var referenced = Set<RuleReference>(), generated = Set<RuleReference>()
        for (c, refs) in references.enumerated() {
            referenced.formUnion(refs)
            if set.correlations[c].generate { generated.formUnion(refs) }
        }
        standaloneDetections = Set(set.detections.indices.filter { !referenced.contains(.detection($0)) || generated.contains(.detection($0)) })
        standaloneCorrelations = Set(set.correlations.indices.filter { !referenced.contains(.correlation($0)) || generated.contains(.correlation($0)) })

        func isWindowed(_ c: Int) -> Bool {
            switch set.correlations[c].kind {
            case .eventCount, .valueCount, .temporal, .temporalOrdered: return true
            case .firstSeen, .impossibleTravel: return false
            }
        }
        var order: [Int] = []
        func visit(_ c: Int, _ path: [Int]) {
            guard !order.contains(c), !path.contains(c) else { return }
            for case .correlation(let inner) in references[c] { visit(inner, path + [c]) }
            order.append(c)
        }
        set.correlations.indices.forEach { visit($0, []) }
        let windowed = order.filter(isWindowed)
        self.windowed = windowed
        firstSeen = set.correlations.indices.filter { if case .firstSeen = set.correlations[$0].kind { return true }; return false }
        travel = set.correlations.indices.filter { if case .impossibleTravel = set.correlations[$0].kind { return true }; return false }

        var fed = Set<Int>()
        func feed(_ c: Int, depth: Int) {
            guard depth < 32 else { return }
            for ref in references[c] {
                switch ref {
                case .detection(let d): fed.insert(d)
                case .correlation(let inner): feed(inner, depth: depth + 1)
                }
            }
        }
        windowed.forEach { feed($0, depth: 0) }
        fedDetections = fed

        var paths = Set(AlertFactory.displayPaths)
        var longest: TimeInterval = 0
        for c in windowed {
            let rule = set.correlations[c]
            for (position, ref) in references[c].enumerated() {
                if case .detection = ref { rule.groupBy.forEach { paths.insert(rule.groupPath($0, forRule: rule.rules[position])) } }
            }
            if case .valueCount(let field) = rule.kind { paths.insert(SignInFieldCatalog.resolve(field).path) }
            longest = max(longest, rule.timespan.interval)
        }
        for c in travel { longest = max(longest, set.correlations[c].timespan.interval) }
        keptPaths = paths.sorted()
        horizon = settings.lookback + longest

        func components(_ path: String) -> [String] { path.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
        func resolved(_ name: String) -> [String] { components(SignInFieldCatalog.resolve(name).path) }
        // In the fast engine's slot order: what is always read, then groups, then first-seen
        // values, then what the searches test.
        var read: [[String]] = [["id"], ["createdDateTime"], RuleGraph.latitudePath, RuleGraph.longitudePath] + keptPaths.map(components)
        read += set.detections.flatMap { ($0.options.groupBy ?? RuleEngineOptions.defaultSingleEventGroup).map(resolved) }
        read += set.correlations.flatMap { $0.groupBy.map(resolved) }
        read += set.correlations.flatMap { rule -> [[String]] in
            guard case .firstSeen(let spec) = rule.kind else { return [] }
            return spec.fields.map(resolved)
        }
        var keywords = false
        for rule in set.detections {
            for search in rule.detection.searches.values {
                if let paths = search.referencedPaths { read += paths } else { keywords = true }
            }
        }
        readPaths = read
        hasKeywordSearch = keywords
    }

    /// Whether correlation `c` refers to one of the detections an event matched.
    package func references(_ c: Int, anyOf matched: [Int]) -> Bool {
        references[c].contains { if case .detection(let d) = $0 { return matched.contains(d) }; return false }
    }
}
