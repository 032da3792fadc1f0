import TophhieJSON

/// What an alert's line takes from its rule (`author`, `rule`, whether it calls for the takeover
/// steps, the order of its group's fields), worked out once and kept for the alerts of the same
/// rule that follow: a replay writes thousands of one rule's alerts in a row, and the rule's eight
/// texts, escaped each time, were a sixth of writing a line.
///
/// A class so that a writer's closure can keep one; unchecked Sendable: it is used by one writer
/// at a time (`ReplayCommand` under its output's lock).
public final class AlertRuleLines: @unchecked Sendable {
    private var rule: AlertRule?
    /// `"author":"…",`, or nothing.
    private(set) var author: [UInt8] = []
    /// `,"rule":{…}`.
    private(set) var object: [UInt8] = []
    /// Whether the rule's alerts mean a possible takeover (`AlertResponse.takeoverRules`).
    private(set) var takeover = false

    /// The fields of the last group written, and the places of its values to write.
    private var groupFields: [String] = []
    private var groupOrder: [Int] = []

    public init() {}

    /// The places in `group` of the values its line holds: the first value of each field, in the
    /// order of the fields' bytes (as `JSONWriter.writeObject` writes a dictionary). A rule's
    /// alerts group by the same fields in the same order: worked out again only when they differ.
    func order(of group: [AlertGroupValue]) -> [Int] {
        // Compared in place: a rule's fields are the same texts alert after alert.
        if group.count == groupFields.count, group.indices.allSatisfy({ group[$0].field == groupFields[$0] }) { return groupOrder }
        groupFields = group.map(\.field)
        var firsts: [Int] = []
        for index in group.indices where !firsts.contains(where: { group[$0].field == group[index].field }) { firsts.append(index) }
        // Stable: of equal fields only the first is kept anyway.
        groupOrder = firsts.sorted { JSONWriter.precedes(group[$0].field, group[$1].field) }
        return groupOrder
    }

    /// Holds `rule`'s pieces, written again only when the rule is another.
    func hold(_ rule: AlertRule) {
        // Compared in place: the alerts of one rule share its texts, which compare by identity.
        if self.rule == rule { return }
        self.rule = rule
        author = []
        object = []
        if let author = rule.author {
            JSONChunkWriter.appending(to: &self.author) { out in
                out.put(#""author":"#)
                out.string(author)
                out.put(0x2C)
            }
        }
        // `id`, `level`, `tags` and `title` always, after its optional two.
        JSONChunkWriter.appending(to: &object) { out in
            out.put(#","rule":{"#)
            if let author = rule.author { out.put(#""author":"#); out.string(author); out.put(0x2C) }
            if let description = rule.description { out.put(#""description":"#); out.string(description); out.put(0x2C) }
            out.put(#""id":"#); out.string(rule.id)
            out.put(#","level":"#); out.string(rule.level.rawValue)
            out.put(#","tags":["#)
            for index in rule.tags.indices {
                if index > 0 { out.put(0x2C) }
                out.string(rule.tags[index])
            }
            out.put(#"],"title":"#); out.string(rule.title)
            out.put(0x7D)
        }
        takeover = AlertResponse.takeoverRules.contains(rule.id)
    }
}
