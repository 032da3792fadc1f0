import Foundation
import TophhieRules

/// What the engine works out once from a rule set: references resolved, evaluation order, which
/// rules alert on their own, and which fields to keep from each event.
///
/// A class: the run's hot paths read it through one local reference (`let plan = self.plan`),
/// where a struct inside the mutating run had each table it read retained and released.
final class EnginePlan: Sendable {
    /// A referenced rule: a detection (index into `detections`) or a correlation.
    typealias Reference = RuleReference

    let detections: [DetectionRule]
    /// Each detection's condition, held for matching (index as `detections`).
    let matchers: [DetectionMatcher]
    /// `matchers` as the matching loop reads them (`Unretained`).
    let matcherRefs: [Unretained<DetectionMatcher>]
    /// The values the detections read, by which `MatchMemo` remembers their answers; nil when
    /// a keyword search reads every string.
    let matchKey: MatchMemo.Key?
    /// Each detection's metadata and options by reference (index as `detections`).
    let detectionRefs: [DetectionRuleRef]
    /// Each correlation's per-event parts by reference (index as `correlations`).
    let correlationRefs: [CorrelationRuleRef]
    let correlations: [CorrelationRule]
    /// For each correlation, its references in `rules` order (unresolvable ones dropped).
    let references: [[Reference]]
    /// Windowed correlations (count, value, temporal) in dependency order, inner first.
    let windowedOrder: [Int]
    let firstSeen: [Int]
    let travel: [Int]
    /// By correlation, for a first-seen one with `alert-on`: by detection, whether its events
    /// may alert. (Arrays by number, here and below: the engine asks for every event, and
    /// hashing the numbers into sets and tables cost more than the answers.)
    let firstSeenAlerting: [[Bool]?]
    /// By correlation, for a first-seen one with `refresh-only`: by detection, whether its
    /// events only keep known values.
    let firstSeenRefreshing: [[Bool]?]
    /// By correlation, for a travel one with `familiar-from`: by detection, whether its sign-ins
    /// make their place familiar.
    let travelFamiliarFrom: [[Bool]?]
    /// By detection: whether it alerts on its own.
    let isStandaloneDetection: [Bool]
    let standaloneCorrelations: Set<Int>
    /// By detection: whether its matches must be kept for windowed correlations.
    let isFedDetection: [Bool]
    /// For each detection: its suppression group's field names and interned Graph paths.
    let singleGroups: [[(name: String, slot: FieldSlot)]]
    /// Graph paths whose values stored events keep, with the dotted names they are kept under.
    let keptSlots: [(name: String, slot: FieldSlot)]
    /// `keptSlots`' names, in their order: what stored events' values are kept under.
    let keptNames: KeptNames
    /// For each correlation, its `group-by` names resolved to interned Graph paths at load, so
    /// first-seen and travel read an event without the field catalogue or a string split.
    let groupSlots: [[FieldSlot]]
    /// By correlation, a first-seen one's value fields, resolved the same way (none for others).
    let firstSeenFieldSlots: [[FieldSlot]]
    /// The `group-by` of the first first-seen or travel correlation: a sign-in's group under it
    /// is worked out once for every such correlation that groups alike (`sharesGroup`), and by
    /// the reading thread when it has time (`Engine.workAhead`).
    let sharedGroupSlots: [FieldSlot]?
    /// By correlation: a first-seen or travel one grouping by `sharedGroupSlots`.
    let sharesGroup: [Bool]
    /// By detection: whether a first-seen or travel correlation references it.
    let feedsPerEventCorrelation: [Bool]
    /// By correlation, a first-seen one's: the first first-seen correlation with the same value
    /// fields and version rule, whose value key an event's is (`FirstSeenKey`); -1 for others.
    let firstSeenKeySource: [Int]
    /// Every Graph path any rule or the engine reads from an event; nil when a keyword search
    /// reads every string of it.
    let referencedPaths: [[String]]?
    /// The slots a streamed event must carry, and its every string when a keyword search reads them.
    let layout: EventLayout
    /// How long windows stay open: lookback plus the longest timespan.
    let horizon: TimeInterval
    /// For each windowed correlation, how far back from a window's end its events can lie: its
    /// timespan, plus its inner correlations' for a chain.
    let chainSpans: [Int: TimeInterval]
    /// The longest of `chainSpans`: no window ending later than an instant reads an event older
    /// than this before it.
    let longestChain: TimeInterval


    /// A field name (Sigma taxonomy or Graph path) as the Graph path's components.
    static func components(_ name: String) -> [String] {
        SignInFieldCatalog.resolve(name).path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    init(rules: RuleSet, settings: EngineSettings) {
        let detections = rules.detections
        let correlations = rules.correlations
        self.detections = detections
        let numbering = EntryNumbering()
        matchers = detections.map { DetectionMatcher($0.detection, numbering: numbering) }
        matcherRefs = matchers.map(Unretained.init)
        matchKey = MatchMemo.Key(detections.map(\.detection))
        detectionRefs = detections.map(DetectionRuleRef.init)
        correlationRefs = correlations.map(CorrelationRuleRef.init)
        self.correlations = correlations
        singleGroups = detections.map { rule in
            (rule.options.groupBy ?? RuleEngineOptions.defaultSingleEventGroup).map { name in
                (name, FieldSlot.intern(EnginePlan.components(name)))
            }
        }
        // What every evaluator works out alike: references, which rules stand alone, the
        // windowed order, which detections feed windows, the kept paths and the horizon.
        let graph = RuleGraph(rules, settings: settings)
        let detectionIndex = graph.detectionIndex
        let references = graph.references
        self.references = references
        firstSeenAlerting = correlations.map { rule in
            guard case .firstSeen(let spec) = rule.kind, let names = spec.alertOn else { return nil }
            let alerting = Set(names.compactMap { detectionIndex[$0] })
            return detections.indices.map(alerting.contains)
        }
        travelFamiliarFrom = correlations.map { rule in
            guard case .impossibleTravel(let spec) = rule.kind, let names = spec.familiarFrom else { return nil }
            let teaching = Set(names.compactMap { detectionIndex[$0] })
            return detections.indices.map(teaching.contains)
        }
        firstSeenRefreshing = correlations.map { rule in
            guard case .firstSeen(let spec) = rule.kind, let names = spec.refreshOnly else { return nil }
            let refreshing = Set(names.compactMap { detectionIndex[$0] })
            return detections.indices.map(refreshing.contains)
        }
        isStandaloneDetection = detections.indices.map(graph.standaloneDetections.contains)
        standaloneCorrelations = graph.standaloneCorrelations
        let windowedOrder = graph.windowed
        self.windowedOrder = windowedOrder
        var chainSpans: [Int: TimeInterval] = [:]
        for c in windowedOrder {
            let inner = references[c].compactMap { ref -> TimeInterval? in if case .correlation(let i) = ref { return chainSpans[i] ?? 0 }; return nil }
            chainSpans[c] = correlations[c].timespan.interval + (inner.max() ?? 0)
        }
        self.chainSpans = chainSpans
        longestChain = chainSpans.values.max() ?? 0
        firstSeen = graph.firstSeen
        let travel = graph.travel
        self.travel = travel
        isFedDetection = detections.indices.map(graph.fedDetections.contains)

        groupSlots = correlations.map { rule in rule.groupBy.map { FieldSlot.intern(EnginePlan.components($0)) } }
        firstSeenFieldSlots = correlations.map { rule in
            guard case .firstSeen(let spec) = rule.kind else { return [] }
            return spec.fields.map { FieldSlot.intern(EnginePlan.components($0)) }
        }
        let perEvent = firstSeen + travel
        let grouped = groupSlots
        let shared = perEvent.min().map { grouped[$0] }
        sharedGroupSlots = shared
        sharesGroup = correlations.indices.map { c in perEvent.contains(c) && grouped[c] == shared }
        let perEventFed = Set(perEvent.flatMap { references[$0] }.compactMap { ref -> Int? in if case .detection(let d) = ref { return d }; return nil })
        feedsPerEventCorrelation = detections.indices.map(perEventFed.contains)
        let valueFields = firstSeenFieldSlots
        let ignoring = correlations.map { rule -> Bool in if case .firstSeen(let spec) = rule.kind { return spec.ignoreVersions }; return false }
        let seenRules = firstSeen
        firstSeenKeySource = correlations.indices.map { c in
            guard seenRules.contains(c) else { return -1 }
            return seenRules.first { valueFields[$0] == valueFields[c] && ignoring[$0] == ignoring[c] } ?? c
        }

        keptSlots = graph.keptPaths.map { ($0, FieldSlot.intern(path: $0)) }
        keptNames = KeptNames(keptSlots.map(\.name), slots: keptSlots.map(\.slot))

        referencedPaths = graph.eventPaths
        layout = EventLayout(slots: graph.readPaths.map(FieldSlot.intern), keepsKeywordTexts: graph.hasKeywordSearch)
        horizon = graph.horizon
    }
}
