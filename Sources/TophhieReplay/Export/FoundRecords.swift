import TophhieJSON

/// What a file's records were when none of them is a sign-in, so the refusal can say what the
/// file is instead ("an audit log: 123 records with activityDisplayName, none a sign-in").
struct FoundRecords {
    /// Records that are not sign-ins.
    private(set) var count = 0
    /// Of them, those with an audit log's `activityDisplayName` (any capitalisation, or inside
    /// an Azure Monitor record's `properties`).
    private(set) var audit = 0
    private(set) var auditName = "activityDisplayName"
    /// The Log Analytics table or Azure Monitor category each names (`Type`, `category`).
    private(set) var tables: [String: Int] = [:]
    /// The first one and why it is not a sign-in.
    private(set) var first: (place: String, problem: String)?

    /// Counts one record that is not a sign-in.
    /// - Parameter raw: the record as the file holds it (`.null` when it could not be read).
    mutating func add(_ raw: JSONValue, place: String, problem: String) {
        count += 1
        if first == nil { first = (place, problem) }
        guard case .object(let members) = raw else { return }
        var names = members
        if case .object(let properties)? = members["properties"] { names.merge(properties) { outer, _ in outer } }
        if let name = ["activityDisplayName", "ActivityDisplayName"].first(where: { names[$0] != nil }) {
            audit += 1
            auditName = name
        }
        // Log Analytics names its table in `Type`; Azure Monitor its category beside `properties`
        // (a Graph audit record's own `category` is no table).
        let table = members["Type"]?.stringValue ?? (members["properties"] != nil ? members["category"]?.stringValue : nil)
        if let table, !ExportColumns.signInTables.contains(table) {
            tables[table, default: 0] += 1
        }
    }

    /// The sentence for a file none of whose records is a sign-in.
    var sentence: String {
        let table = tables.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
        let records = count == 1 ? "1 record" : "\(count) records"
        if audit == count {
            return "an audit log\(table.map { " (\($0))" } ?? ""): \(records) with \(auditName), none a sign-in"
        }
        if let table, tables[table] == count {
            return "a \(table) table: \(records), none a sign-in"
        }
        let why = first.map { "; the first, \($0.place): \($0.problem)" } ?? ""
        return "\(records), none a sign-in\(why)"
    }
}
