import TophhieJSON

/// What `ExportRecord.fromLogAnalytics` makes of one Log Analytics column, from its name alone:
/// worked out once a file where the names are known ahead (a CSV's header, a table's columns,
/// the columns a row is read for), rather than for every column of every row.
struct ColumnMapping: Sendable {
    /// The name as the file writes it.
    let name: String
    /// Without the portal's ` [UTC]` and `_dynamic` (`ExportRecord.columnName`).
    let plain: String
    /// `DeviceDetail_dynamic`: its JSON, which wins over `DeviceDetail`, the display text.
    let dynamic: Bool
    /// The Graph member it becomes; nil for a column that is no sign-in property.
    let member: String?
    let reading: ExportColumns.Reading
    /// Which of the mapping's own inputs it is: they make the time, the status and the stream.
    let input: Input?
    /// `Location`, the country alone: dropped when it is text (`LocationDetails` has it).
    let isCountry: Bool

    enum Input: Sendable { case timeGenerated, resultType, resultDescription, type, category }

    /// A row's values of the mapping's own inputs (`ExportRecord.finish`).
    struct Inputs {
        var generated: JSONValue?
        var resultType: JSONValue?
        var resultDescription: JSONValue?
        var type: JSONValue?
        var category: JSONValue?

        /// Notes `value` when its column is one of them (the last of each counts).
        mutating func note(_ input: Input?, _ value: JSONValue) {
            switch input {
            case .timeGenerated?: generated = value
            case .resultType?: resultType = value
            case .resultDescription?: resultDescription = value
            case .type?: type = value
            case .category?: category = value
            case nil: break
            }
        }
    }

    init(_ name: String) {
        self.name = name
        (plain, dynamic) = ExportRecord.columnName(name)
        let known = ExportColumns.columns[plain]
        member = known?.dropped == true ? nil : known?.name ?? ExportRecord.lowered(plain)
        reading = known?.reading ?? .plain
        isCountry = plain == "Location"
        switch plain {
        case "TimeGenerated": input = .timeGenerated
        case "ResultType": input = .resultType
        case "ResultDescription": input = .resultDescription
        case "Type": input = .type
        case "Category": input = .category
        default: input = nil
        }
    }

    /// Whether the name is not the one the mapping reads it by (` [UTC]`, `_dynamic`): another
    /// column of the row may then share its plain name.
    var isRenamed: Bool { dynamic || plain.utf8.count != name.utf8.count }
}
