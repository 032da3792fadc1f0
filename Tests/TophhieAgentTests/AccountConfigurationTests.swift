import Foundation
import Testing
import TophhieAgent

/// `accounts:` in the config file: each account's own tenant, app, notifiers and state folder,
/// and the errors that name what is wrong.
@Suite(.timeLimit(.minutes(20))) struct AccountConfigurationTests {
    static let base = """
    tenant: contoso.onmicrosoft.com
    client_id: 11111111-2222-3333-4444-555555555555
    state_dir: /var/lib/tophhie-watch
    notifiers:
      - type: stdout
        name: console
      - type: webhook
        name: sam-phone
        url: https://ntfy.example/sam
    """

    func parse(_ text: String) throws -> AgentConfiguration {
        try AgentConfiguration.parse(text, file: "cfg.yml", baseDirectory: URL(fileURLWithPath: "/"), environment: [:])
    }

    func refusal(_ text: String) -> String? {
        do { _ = try parse(text); return nil } catch { return "\(error)" }
    }

    @Test func withoutAccountsTheOneAccountIsDefaultWithItsStateWhereItWas() throws {
        let configuration = try parse(Self.base)
        #expect(configuration.accountNames == ["default"])
        #expect(!configuration.namesAccounts)
        let every = configuration.everyAccount()
        #expect(every == [configuration])
        #expect(every[0].stateDirectory.path == "/var/lib/tophhie-watch")
        #expect(try configuration.account(named: nil) == configuration)
        #expect(try configuration.account(named: "default") == configuration)
    }

    @Test func eachAccountHasItsOwnTenantNotifiersAndStateFolder() throws {
        let configuration = try parse(Self.base + """

        accounts:
          - name: jane
          - name: sam
            tenant: fabrikam.onmicrosoft.com
            client_id: 99999999-8888-7777-6666-555555555555
            notifiers: [console, sam-phone]
          - name: ann
            notifiers: console
        """)
        #expect(configuration.accountNames == ["jane", "sam", "ann"])
        #expect(configuration.namesAccounts)
        let every = configuration.everyAccount()
        #expect(every.map(\.account) == ["jane", "sam", "ann"])
        #expect(every.map(\.stateDirectory.path) == ["/var/lib/tophhie-watch/accounts/jane", "/var/lib/tophhie-watch/accounts/sam", "/var/lib/tophhie-watch/accounts/ann"])
        #expect(every.map(\.tenant) == ["contoso.onmicrosoft.com", "fabrikam.onmicrosoft.com", "contoso.onmicrosoft.com"])
        #expect(every.map(\.clientID) == ["11111111-2222-3333-4444-555555555555", "99999999-8888-7777-6666-555555555555", "11111111-2222-3333-4444-555555555555"])
        #expect(every.map { $0.notifiers.map(\.name) } == [["console", "sam-phone"], ["console", "sam-phone"], ["console"]])
        #expect(every.allSatisfy { $0.accounts.isEmpty && $0.namesAccounts })
        #expect(try configuration.account(named: "sam") == every[1])
    }

    @Test func aCommandForOneAccountNamesTheAccountsWhenItIsNotTold() throws {
        let several = try parse(Self.base + "\naccounts:\n  - name: jane\n  - name: sam\n")
        #expect(throws: ConfigurationError("2 accounts are configured (jane, sam): pass --account NAME", file: "cfg.yml")) { try several.account(named: nil) }
        #expect(throws: ConfigurationError("there is no account 'bob'; the accounts configured are jane, sam", file: "cfg.yml")) { try several.account(named: "bob") }
        let one = try parse(Self.base + "\naccounts:\n  - name: jane\n")
        #expect(try one.account(named: nil).account == "jane")
        let none = try parse(Self.base)
        #expect(throws: ConfigurationError("there is no account 'jane': no 'accounts:' are configured, and the one account watched is 'default'", file: "cfg.yml")) { try none.account(named: "jane") }
    }

    @Test func brokenAccountsAreRefusedWhereTheyAre() {
        #expect(refusal(Self.base + "\naccounts:\n  - name: Jane\n") == "cfg.yml:11:11: error: account name 'Jane' must be 1 to 32 lowercase letters, digits, '-' or '_', starting with a letter or digit (it names a folder and goes into alert ids)")
        #expect(refusal(Self.base + "\naccounts:\n  - name: ../etc\n") == "cfg.yml:11:11: error: account name '../etc' must be 1 to 32 lowercase letters, digits, '-' or '_', starting with a letter or digit (it names a folder and goes into alert ids)")
        #expect(refusal(Self.base + "\naccounts:\n  - name: jane\n  - name: jane\n") == "cfg.yml:12:5: error: two accounts are named 'jane'; give each a unique 'name'")
        #expect(refusal(Self.base + "\naccounts:\n  - tenant: fabrikam.onmicrosoft.com\n") == "cfg.yml:11:5: error: an account needs a 'name'")
        #expect(refusal(Self.base + "\naccounts:\n  - name: jane\n    phone: x\n") == "cfg.yml:12:5: error: unknown key 'phone' in an account; known: name, tenant, client_id, notifiers")
        #expect(refusal(Self.base + "\naccounts:\n  - name: jane\n    notifiers: [pager]\n") == "cfg.yml:11:5: error: account 'jane' names the notifier 'pager', which is not configured; notifiers: console, sam-phone")
        #expect(refusal(Self.base + "\naccounts: []\n") == "cfg.yml:10:11: error: 'accounts' is empty; remove it to watch the one signed-in account, or list each account with a 'name'")
        #expect(refusal(Self.base + "\naccounts:\n  name: jane\n") == "cfg.yml:11:3: error: 'accounts' must be a list of accounts, each with a 'name'")
    }

    @Test func notifiersListedAfterTheAccountsAreFound() throws {
        let configuration = try parse("accounts:\n  - name: jane\n    notifiers: [console]\nnotifiers:\n  - type: stdout\n    name: console\n")
        #expect(configuration.everyAccount()[0].notifiers.map(\.name) == ["console"])
    }
}
