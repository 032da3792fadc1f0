import Foundation
import TophhieAuth
import YAMLReader

/// One person the agent watches (an entry of `accounts:`), with what differs from the top level.
///
/// Each account signs in as itself and reads only its own sign-ins; its token cache and state
/// live under `<state_dir>/accounts/<name>/`.
public struct AccountConfiguration: Sendable, Equatable {
    /// The name the account goes by in commands (`--account`), state paths and every alert.
    public var name: String
    /// The account's tenant; nil takes the top-level `tenant`.
    public var tenant: String?
    /// The app registration; nil takes the top-level `client_id`.
    public var clientID: String?
    /// The notifiers its alerts go to, by name; nil sends them to every notifier.
    public var notifiers: [String]?
    /// Where the entry is in the config file, for messages.
    public var line: Int?
    public var column: Int?

    /// The name of the one account a configuration without `accounts:` watches.
    public static let defaultName = "default"

    public init(name: String, tenant: String? = nil, clientID: String? = nil, notifiers: [String]? = nil) {
        self.name = name
        self.tenant = tenant
        self.clientID = clientID
        self.notifiers = notifiers
    }

    /// Why `name` cannot name an account, or nil: it names a folder and goes into alert ids.
    public static func nameProblem(_ name: String) -> String? {
        let scalars = Array(name.unicodeScalars)
        let allowed = scalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
        guard !scalars.isEmpty, scalars.count <= 32, allowed, scalars[0] != "-", scalars[0] != "_" else {
            return "account name '\(name)' must be 1 to 32 lowercase letters, digits, '-' or '_', starting with a letter or digit (it names a folder and goes into alert ids)"
        }
        return nil
    }
}

extension ConfigReader {
    /// Reads `accounts:`, a list of mappings with a `name` each.
    /// - Parameter notifiers: the names configured, which an account's `notifiers` must be among.
    func accounts(_ node: YAMLNode, notifiers: Set<String>?) throws -> [AccountConfiguration] {
        guard case .sequence(let items) = node.kind else { throw error("'accounts' must be a list of accounts, each with a 'name'", at: node) }
        guard !items.isEmpty else { throw error("'accounts' is empty; remove it to watch the one signed-in account, or list each account with a 'name'", at: node) }
        var result: [AccountConfiguration] = []
        var names: Set<String> = []
        for item in items {
            var account = AccountConfiguration(name: "")
            account.line = item.mark.line
            account.column = item.mark.column
            var named = false
            for (key, value) in try mapping(item, "an account") {
                switch key.text {
                case "name":
                    account.name = try string(value, "name")
                    if let problem = AccountConfiguration.nameProblem(account.name) { throw error(ControlCharacterEscaping.escape(problem), at: value) }
                    named = true
                case "tenant":
                    let tenant = try string(value, "tenant")
                    if let problem = DirectoryIdentifiers.tenantProblem(tenant) { throw error(ControlCharacterEscaping.escape(problem), at: value) }
                    account.tenant = tenant
                case "client_id":
                    let clientID = try string(value, "client_id")
                    if let problem = DirectoryIdentifiers.clientProblem(clientID) { throw error(ControlCharacterEscaping.escape(problem), at: value) }
                    account.clientID = clientID
                case "notifiers":
                    account.notifiers = try stringList(value, "notifiers")
                default:
                    throw error("unknown key '\(key.text)' in an account; known: name, tenant, client_id, notifiers", at: key.node)
                }
            }
            guard named else { throw error("an account needs a 'name'", at: item) }
            guard names.insert(account.name).inserted else {
                throw error("two accounts are named '\(account.name)'; give each a unique 'name'", at: item)
            }
            result.append(account)
        }
        return result
    }
}
