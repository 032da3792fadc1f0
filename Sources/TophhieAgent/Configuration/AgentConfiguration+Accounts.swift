import Foundation

extension AgentConfiguration {
    /// The names of the accounts watched: those of `accounts:`, or `default` without it.
    public var accountNames: [String] {
        accounts.isEmpty ? [AccountConfiguration.defaultName] : accounts.map(\.name)
    }

    /// Whether alerts, notices and log lines name their account: only with `accounts:`, so a
    /// one-account configuration from before reads as it did.
    public var namesAccounts: Bool { !accounts.isEmpty || account != nil }

    /// Each account's own configuration, in the order configured; without `accounts:`, this one.
    public func everyAccount() -> [AgentConfiguration] {
        accounts.isEmpty ? [self] : accounts.map(narrowed(to:))
    }

    /// The configuration of one account, for a command's `--account`.
    /// - Parameter name: the account; nil means the only one.
    /// - Throws: `ConfigurationError` naming the accounts configured when `name` is none of them,
    ///   or when it is nil and there are several.
    public func account(named name: String?) throws -> AgentConfiguration {
        guard !accounts.isEmpty else {
            guard let name, name != AccountConfiguration.defaultName else { return self }
            throw ConfigurationError("there is no account '\(name)': no 'accounts:' are configured, and the one account watched is '\(AccountConfiguration.defaultName)'", file: sourceFile)
        }
        guard let name else {
            if accounts.count == 1 { return narrowed(to: accounts[0]) }
            throw ConfigurationError("\(accounts.count) accounts are configured (\(accountNames.joined(separator: ", "))): pass --account NAME", file: sourceFile)
        }
        guard let account = accounts.first(where: { $0.name == name }) else {
            throw ConfigurationError("there is no account '\(ControlCharacterEscaping.escape(name))'; the accounts configured are \(accountNames.joined(separator: ", "))", file: sourceFile)
        }
        return narrowed(to: account)
    }

    /// This configuration as `account` sees it: its own tenant, app, notifiers and state folder.
    private func narrowed(to account: AccountConfiguration) -> AgentConfiguration {
        var narrowed = self
        narrowed.accounts = []
        narrowed.account = account.name
        if let tenant = account.tenant, tenant != self.tenant {
            narrowed.tenant = tenant
            // The authority names the top-level tenant; another tenant signs in at its own.
            narrowed.authority = nil
        }
        if let clientID = account.clientID { narrowed.clientID = clientID }
        if let names = account.notifiers { narrowed.notifiers = notifiers.filter { names.contains($0.name) } }
        narrowed.stateDirectory = Self.accountDirectory(account.name, under: stateDirectory)
        return narrowed
    }

    /// `<state_dir>/accounts/<name>`: an account's token cache, cursors, learning and outboxes.
    public static func accountDirectory(_ name: String, under stateDirectory: URL) -> URL {
        stateDirectory.appendingPathComponent("accounts").appendingPathComponent(name)
    }
}
