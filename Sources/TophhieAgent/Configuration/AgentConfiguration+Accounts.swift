import Foundation
import TophhieAuth

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

    /// One account's requests in a poll with nothing new: for each stream, the recent read and
    /// one page of the lookback walk, and the `GET /me` that opens the poll's connection. The
    /// sweep and a first poll's history go beyond it and wait for room in the budget.
    public var steadyRequestsPerPoll: Int { signInAPI.streams.count * 2 + 1 }

    /// Every account's steady-state requests against Graph's reporting budget at the poll
    /// interval; nil without `accounts:` or before a tenant and app are known.
    public func graphBudgetFit() -> GraphBudgetFit? {
        guard namesAccounts else { return nil }
        var requests: [GraphBudgetKey: [Int]] = [:]
        for account in everyAccount() {
            guard let tenant = account.tenant, let clientID = account.clientID else { return nil }
            requests[GraphBudgetKey(clientID: clientID, tenant: tenant), default: []].append(account.steadyRequestsPerPoll)
        }
        return GraphBudgetFit(requestsPerPoll: requests, interval: pollInterval)
    }

    /// Refuses accounts whose steady-state requests do not fit their poll interval.
    /// - Throws: `ConfigurationError` naming each tenant or app over its budget and the
    ///   shortest interval that fits.
    public func checkGraphBudget() throws {
        guard let fit = graphBudgetFit(), !fit.fits else { return }
        let interval = DurationText.text(pollInterval)
        var over = fit.tenants.filter { !$0.fits }.map { "\($0.key.tenant) (\($0.accounts) account\($0.accounts == 1 ? "" : "s")) needs \($0.requestsPerCycle) requests every \(interval), and Graph allows \($0.allowedPerCycle) (5 per 10 s per app and tenant)" }
        over += fit.apps.filter { !$0.fits }.map { "the app \($0.clientID) needs \($0.requestsPerCycle) requests every \(interval) across its tenants, and Graph allows \($0.allowedPerCycle) (122 per 10 s)" }
        throw ConfigurationError("the accounts do not fit Graph's reporting budget: \(over.joined(separator: "; ")). The shortest poll.interval that fits is \(DurationText.text(fit.shortestInterval)); set it, or watch fewer accounts", file: sourceFile)
    }
}
