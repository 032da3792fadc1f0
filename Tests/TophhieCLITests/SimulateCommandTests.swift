import Foundation
import Testing
import TophhieJSON
import TophhieSimulator
@testable import TophhieCLI

/// How a person trying the simulator learns to add a sign-in and see its alert.
@Suite struct SimulateCommandTests {
    @Test func theHelpTellsHowToAddASignIn() async {
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(["simulate", "--help"], io: recorder.io(environment: [:]))
        #expect(code == .ok)
        #expect(recorder.out.contains("To see an alert, add a sign-in (POST /_sim/signins"), "\(recorder.out)")
        #expect(recorder.out.contains("curl -s -X POST http://127.0.0.1:8765/_sim/signins -d '[{"))
    }

    /// The printed line, its shell substitutions made, posts one Graph sign-in of the user.
    @Test func theLineItPrintsPostsASignInOfTheUser() throws {
        let line = SimulateCommand.addSignInLine(control: "http://127.0.0.1:9/_sim", userID: "u-1", userPrincipalName: "jane@contoso.com")
        #expect(line.hasPrefix("curl -s -X POST http://127.0.0.1:9/_sim/signins -d '["))
        let body = line.replacingOccurrences(of: "'$(date +%s)'", with: "1").replacingOccurrences(of: "'$(date -u +%FT%TZ)'", with: "2026-12-06T10:00:00Z")
        let json = String(body.drop { $0 != "[" }.dropLast())
        guard case .array(let records) = try JSONValue.parse(Data(json.utf8)), let record = records.first, records.count == 1 else {
            Issue.record("not an array of one sign-in: \(json)")
            return
        }
        #expect(record["userId"]?.stringValue == "u-1")
        #expect(record["createdDateTime"]?.stringValue == "2026-12-06T10:00:00Z")
        #expect(record["location"]?["countryOrRegion"]?.stringValue == "RU")
    }

    @Test func theHelpTellsHowToServeSeveralPeopleAndTheGraphLimit() async {
        let recorder = CommandOutputRecorder()
        let code = await TophhieCommandLine.run(["simulate", "--help"], io: recorder.io(environment: [:]))
        #expect(code == .ok)
        #expect(recorder.out.contains("--people N"), "\(recorder.out)")
        #expect(recorder.out.contains("--graph-limit"))
        #expect(recorder.out.contains(#"POST /_sim/device/approve {"person":"person2@contoso.com"}"#))
        #expect(recorder.out.contains(#"POST /_sim/tokens/revoke {"person":"person2@contoso.com"}"#))
    }

    /// One person is today's tenant, banner and all; more add a line each for people and the limit.
    @Test func theBannerNamesThePeopleAndTheLimitOnlyWhenAskedFor() {
        let today = SimulateCommand.defaultScenario()
        #expect(today.servingPeople(1) == today)
        #expect(SimulateCommand.peopleLine(today) == "")
        #expect(SimulateCommand.limitLine(today) == "")
        var three = today.servingPeople(3)
        three.throttle = ThrottleSettings(enabled: true)
        #expect(SimulateCommand.peopleLine(three) == "\n  people      3: person1@contoso.com to person3@contoso.com (GET /_sim/people)")
        #expect(SimulateCommand.limitLine(three) == "\n  Graph limit 5 sign-in log requests per 10 s, then 429 (count: GET /_sim/status)")
        // Person 1 keeps the user's id and the default history; the others have fourteen days of their own.
        #expect(three.user.id == today.user.id)
        #expect(three.generate == today.generate)
        #expect(three.people.map { $0.generate } == [
            [SignInGeneration(pattern: .normalHistory, seed: 1007, days: 14)], [SignInGeneration(pattern: .normalHistory, seed: 2007, days: 14)],
        ])
    }
}
