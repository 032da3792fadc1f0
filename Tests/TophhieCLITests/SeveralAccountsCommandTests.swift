import Foundation
import Testing
import TophhieSystem
import TophhieAgent
import TophhieJSON
import TophhieSimulator
@testable import TophhieCLI

/// One agent, several accounts (issue 49): each signs in on its own, one poll reads them all,
/// and one that needs a sign-in never keeps the others from being read.
@Suite(.timeLimit(.minutes(20))) struct SeveralAccountsCommandTests {
    func run(_ arguments: [String], _ context: AccountCommandTests.Tenant) async -> (ExitCode, CommandOutputRecorder) {
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(arguments, io: recorder.io(environment: context.environment, transport: context.transport, clock: context.clock))
        return (code, recorder)
    }

    /// A tenant with a config file naming `accounts` in its state directory.
    func prepared(accounts: [String]) async throws -> AccountCommandTests.Tenant {
        let context = try await AccountCommandTests.tenant()
        do {
            try FileManager.default.createDirectory(atPath: context.stateDirectory, withIntermediateDirectories: true)
            try AgentHealthCommandTests.rules.write(toFile: context.stateDirectory + "/rules.yml", atomically: true, encoding: .utf8)
            let list = accounts.map { "  - name: \($0)\n" }.joined()
            try "rules: [rules.yml]\naccounts:\n\(list)".write(toFile: context.stateDirectory + "/tophhie-watch.yml", atomically: true, encoding: .utf8)
        } catch {
            try? FileManager.default.removeItem(atPath: context.stateDirectory)
            throw error
        }
        return context
    }

    @Test func eachAccountSignsInAndIsPolledWhileAnotherStillNeedsItsSignIn() async throws {
        let context = try await prepared(accounts: ["jane", "sam"])
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }

        let (unnamed, unnamedLogin) = await run(["login"], context)
        #expect(unnamed == .usage)
        #expect(unnamedLogin.err.contains("error: 2 accounts are configured (jane, sam): pass --account NAME"), "\(unnamedLogin.err)")

        let (signedIn, login) = await run(["login", "--account", "jane"], context)
        #expect(signedIn == .ok, "\(login.err)")
        let janeCache = context.stateDirectory + "/accounts/jane/tokens.json"
        #expect(login.out.contains("Token cache: \(janeCache) (mode 0600)"), "\(login.out)")
        #expect(DurableFile.permissions(of: janeCache) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: context.stateDirectory + "/tokens.json"), "no account's tokens at the top")

        // Sam has not signed in: the poll reads Jane, names Sam, and exits 3.
        let (halfPolled, halfPoll) = await run(["poll"], context)
        #expect(halfPolled == .signInNeeded, "\(halfPoll.err)")
        let lines = halfPoll.err.split(separator: "\n").map { String($0.split(separator: " ", maxSplits: 2).last ?? "") }
        #expect(lines.contains { $0.hasPrefix("jane: learned from 2 sign-ins since") }, "\(halfPoll.err)")
        #expect(lines.contains { $0.hasPrefix("sam: poll failed (signInNeeded): sign-in needed: nobody is signed in; run 'tophhie-watch login --account sam';") }, "\(halfPoll.err)")
        #expect(FileManager.default.fileExists(atPath: context.stateDirectory + "/accounts/jane/state.json"))
        // The notice says whose it is, and the command that fixes it is for that account.
        #expect(halfPoll.out.contains("HIGH [tophhie.notice.sign-in-needed] Sign-in needed: monitoring has stopped: Monitoring has stopped until 'tophhie-watch login --account sam' is run again: sign-in needed: nobody is signed in; run 'tophhie-watch login --account sam' (problem=signInNeeded) account=sam id=sam-notice-"), "\(halfPoll.out)")
        #expect(!halfPoll.out.contains("account=jane"), "\(halfPoll.out)")

        let (alsoSignedIn, secondLogin) = await run(["login", "--account", "sam"], context)
        #expect(alsoSignedIn == .ok, "\(secondLogin.err)")
        context.clock.advance(by: 300)
        let (polled, poll) = await run(["poll"], context)
        #expect(polled == .ok, "\(poll.err)")
        #expect(poll.err.contains("jane: read "), "\(poll.err)")
        #expect(poll.err.contains("sam: learned from 2 sign-ins"), "\(poll.err)")

        let (listed, status) = await run(["status", "--json"], context)
        #expect(listed == .ok, "\(status.err)")
        let json = try JSONValue.parse(Data(status.out.utf8))
        guard case .array(let accounts)? = json["accounts"] else { Issue.record("no accounts in \(status.out)"); return }
        #expect(accounts.map { $0["name"]?.stringValue } == ["jane", "sam"])
        #expect(accounts.map { $0["stateDirectory"]?.stringValue } == [context.stateDirectory + "/accounts/jane", context.stateDirectory + "/accounts/sam"])
        #expect(accounts.allSatisfy { $0["session"]?["userPrincipalName"]?.stringValue == "jane@contoso.com" })
        #expect(accounts.allSatisfy { $0["agent"]?["lastSuccessfulPoll"] != nil && $0["agent"]?["lastSuccessfulPoll"] != .null })

        let (text, textStatus) = await run(["status"], context)
        #expect(text == .ok)
        #expect(textStatus.out.contains("Account jane (\(context.stateDirectory)/accounts/jane)\nUser:          jane@contoso.com\n"), "\(textStatus.out)")
        #expect(textStatus.out.contains("Account sam (\(context.stateDirectory)/accounts/sam)\n"), "\(textStatus.out)")

        // The notifiers are the agent's: tested without an account, or as one account's alerts look.
        let (tested, test) = await run(["notify", "test"], context)
        #expect(tested == .ok, "\(test.err)")
        #expect(test.out.contains("[failure-burst] Burst of failed sign-ins (test alert)") && !test.out.contains("account="), "\(test.out)")
        let (testedSam, testSam) = await run(["notify", "test", "--account", "sam"], context)
        #expect(testedSam == .ok, "\(testSam.err)")
        #expect(testSam.out.contains(" account=sam ") && testSam.out.contains("id=sam-test-"), "\(testSam.out)")

        let (one, history) = await run(["history", "--account", "sam", "--top", "1"], context)
        #expect(one == .ok, "\(history.err)")
        let (unknown, unknownHistory) = await run(["history", "--account", "bob"], context)
        #expect(unknown == .usage)
        #expect(unknownHistory.err.contains("error: there is no account 'bob'; the accounts configured are jane, sam"), "\(unknownHistory.err)")
    }

    /// More accounts of one tenant than Graph's budget lets poll every interval are refused,
    /// naming the shortest interval that fits.
    @Test func accountsBeyondGraphsBudgetAreRefusedWithTheIntervalThatFits() async throws {
        let context = try await prepared(accounts: (1...31).map { "person\($0)" })
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        let (refused, poll) = await run(["poll"], context)
        #expect(refused == .usage)
        let tenant = context.environment["TOPHHIE_TENANT"] ?? ""
        #expect(poll.err.contains("error: the accounts do not fit Graph's reporting budget: \(tenant) (31 accounts) needs 155 requests every 5m, and Graph allows 150 (5 per 10 s per app and tenant). The shortest poll.interval that fits is 6m; set it, or watch fewer accounts"), "\(poll.err)")
        let (shown, status) = await run(["status"], context)
        #expect(shown == .signInNeeded)
        #expect(status.out.contains("Graph budget:  155 of 150 per 5m for \(tenant) (31 accounts, 5 requests a poll with nothing new): over the budget\n"), "\(status.out)")
    }

    /// An alert of one account is that account's everywhere: the line names it, its id begins with
    /// it, and `respond --account` lists it under the id the notifiers showed.
    @Test func anAlertIsItsAccountsInTheNotifiersAndInRespond() async throws {
        let context = try await prepared(accounts: ["jane"])
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        let high = AgentHealthCommandTests.rules.replacingOccurrences(of: "level: low", with: "level: high")
        try high.write(toFile: context.stateDirectory + "/rules.yml", atomically: true, encoding: .utf8)
        #expect(await run(["login", "--account", "jane"], context).0 == .ok)
        #expect(await run(["poll"], context).0 == .ok)
        let user = SimulateCommand.defaultScenario().user
        var factory = SignInFactory(seed: 4, account: .init(userID: user.id, userPrincipalName: user.userPrincipalName, displayName: "Jane"))
        context.clock.advance(by: 300)
        await context.tenant.addSignIns([factory.signIn(at: context.clock.now().addingTimeInterval(-60), place: .lagos, errorCode: 50126)], latencySeconds: 0)
        let (polled, poll) = await run(["poll"], context)
        #expect(polled == .ok, "\(poll.err)")
        let line = poll.out.split(separator: "\n").first { $0.contains("[test-failed]") }.map(String.init) ?? ""
        #expect(line.contains(" account=jane "), "\(poll.out)")
        guard let id = line.split(separator: " ").last.map({ String($0.dropFirst("id=".count)) }) else { return }
        #expect(id.hasPrefix("jane-"), "\(line)")
        let (listed, respond) = await run(["respond"], context)
        #expect(listed == .ok, "\(respond.err)")
        #expect(respond.out.contains("  \(id)  [test-failed]"), "\(respond.out)")
    }

    /// Without `accounts:` nothing moves: the state stays where it was and no line names an account.
    @Test func oneAccountWithoutAccountsKeepsItsStateWhereItWas() async throws {
        let context = try await AccountCommandTests.tenant()
        defer { try? FileManager.default.removeItem(atPath: context.stateDirectory) }
        try FileManager.default.createDirectory(atPath: context.stateDirectory, withIntermediateDirectories: true)
        try AgentHealthCommandTests.rules.write(toFile: context.stateDirectory + "/rules.yml", atomically: true, encoding: .utf8)
        try "rules: [rules.yml]\n".write(toFile: context.stateDirectory + "/tophhie-watch.yml", atomically: true, encoding: .utf8)
        let (signedIn, login) = await run(["login"], context)
        #expect(signedIn == .ok, "\(login.err)")
        let (polled, poll) = await run(["poll"], context)
        #expect(polled == .ok, "\(poll.err)")
        #expect(FileManager.default.fileExists(atPath: context.stateDirectory + "/state.json"))
        #expect(FileManager.default.fileExists(atPath: context.stateDirectory + "/tokens.json"))
        #expect(!FileManager.default.fileExists(atPath: context.stateDirectory + "/accounts"))
        #expect(poll.err.contains("tophhie-watch: learned from 2 sign-ins"), "\(poll.err)")
        let (listed, status) = await run(["status", "--json"], context)
        #expect(listed == .ok)
        let json = try JSONValue.parse(Data(status.out.utf8))
        #expect(json["accounts"] == nil)
        #expect(json["session"]?["userPrincipalName"]?.stringValue == "jane@contoso.com")
        let (same, history) = await run(["history", "--account", "default", "--top", "1"], context)
        #expect(same == .ok, "\(history.err)")
    }
}
