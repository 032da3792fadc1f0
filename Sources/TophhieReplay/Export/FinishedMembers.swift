import TophhieJSON

/// The members of a mapped record that the mapping makes from its own inputs where the
/// columns did not give them (`ExportRecord.finish`, `stream`): the time, the status and the
/// stream. Held apart from the record's table, so a row read straight (`RowSlots`) is finished
/// without a table of it.
struct FinishedMembers {
    enum Name: CaseIterable {
        case createdDateTime, status, isInteractive, signInEventTypes

        /// The Graph member, as a record's table names it.
        var member: String {
            switch self {
            case .createdDateTime: return "createdDateTime"
            case .status: return "status"
            case .isInteractive: return "isInteractive"
            case .signInEventTypes: return "signInEventTypes"
            }
        }

        init?(member: String) {
            guard let name = Self.allCases.first(where: { $0.member == member }) else { return nil }
            self = name
        }
    }

    var createdDateTime: JSONValue?
    var status: JSONValue?
    var isInteractive: JSONValue?
    var signInEventTypes: JSONValue?

    subscript(name: Name) -> JSONValue? {
        get {
            switch name {
            case .createdDateTime: return createdDateTime
            case .status: return status
            case .isInteractive: return isInteractive
            case .signInEventTypes: return signInEventTypes
            }
        }
        set {
            switch name {
            case .createdDateTime: createdDateTime = newValue
            case .status: status = newValue
            case .isInteractive: isInteractive = newValue
            case .signInEventTypes: signInEventTypes = newValue
            }
        }
    }

    /// Those of a record's table that are `names`.
    init(of record: [String: JSONValue], _ names: [Name] = Name.allCases) {
        for name in names { self[name] = record[name.member] }
    }

    init() {}

    /// Writes `names` into a record's table (a member none gave stays absent).
    func write(into record: inout [String: JSONValue], _ names: [Name] = Name.allCases) {
        for name in names { if let value = self[name] { record[name.member] = value } }
    }
}
