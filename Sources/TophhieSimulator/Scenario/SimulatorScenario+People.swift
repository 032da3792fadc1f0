import Foundation
import TophhieJSON

extension SimulatorScenario {
    /// The scenario's `user` and `people`, in order: person 1 first.
    public var everyone: [ScenarioPerson] {
        [ScenarioPerson(user: user, home: .london, generate: generate)] + people
    }

    /// The object id of person `number` (2 and up) made by `servingPeople(_:)`: readable, a GUID,
    /// and the same on every run, e.g. `5e1f0000-0000-4000-8000-000000000002`.
    public static func personID(_ number: Int) -> String {
        "5e1f0000-0000-4000-8000-" + String(format: "%012d", number)
    }

    /// The same tenant serving `count` people (`simulate --people`); 1 or less changes nothing.
    ///
    /// With two or more, person *k* is `person<k>@<domain of the user's UPN>` with a display name,
    /// a home from `SignInFactory.Place.homes` (London, New York, Paris…, one country each) and
    /// the scenario's `normalHistory` generations with their own seed (`seed + 1000·(k−1)`; the
    /// default scenario's 14 days when it has none). Person 1 keeps the user's object id, kind,
    /// and all the scenario's generations and listed sign-ins, so a sign-in a scenario names by
    /// `userId` stays theirs; the others get `personID(k)`.
    public func servingPeople(_ count: Int) -> SimulatorScenario {
        guard count > 1 else { return self }
        let domain = user.userPrincipalName.split(separator: "@").last.map(String.init) ?? tenantAliases.first ?? "contoso.com"
        let histories = generate.filter { $0.pattern == .normalHistory }
        var scenario = self
        scenario.user = Self.person(1, id: user.id, domain: domain, like: user)
        scenario.people = (2...count).map { number in
            let seeds = histories.isEmpty ? [SignInGeneration(pattern: .normalHistory, seed: 7, days: 14)] : histories
            let own = seeds.map { generation in
                var copy = generation
                copy.seed = generation.seed &+ UInt64(1000 * (number - 1))
                return copy
            }
            return ScenarioPerson(
                user: Self.person(number, id: Self.personID(number), domain: domain, like: user),
                home: SignInFactory.Place.homes[(number - 1) % SignInFactory.Place.homes.count],
                generate: own
            )
        }
        return scenario
    }

    private static let givenNames = ["Alex", "Sam", "Priya", "Tomasz", "Aiko", "Liam", "Chloe", "Mateo", "Noor", "Erik", "Mei", "Kofi"]
    private static let surnames = ["Morgan", "Fischer", "Dubois", "Nowak", "Tanaka", "Walsh", "Garcia", "Visser", "Lind", "Tan", "Okafor", "Reyes"]

    private static func person(_ number: Int, id: String, domain: String, like template: SimulatedUser) -> SimulatedUser {
        let home = SignInFactory.Place.homes[(number - 1) % SignInFactory.Place.homes.count]
        let given = givenNames[(number - 1) % givenNames.count]
        let surname = surnames[((number - 1) / givenNames.count + number - 1) % surnames.count]
        var profile: [String: JSONValue] = [
            "displayName": .string("\(given) \(surname)"), "givenName": .string(given), "surname": .string(surname),
            "city": .string(home.city), "country": .string(home.countryOrRegion),
        ]
        if let language = template.profile["preferredLanguage"] { profile["preferredLanguage"] = language }
        return SimulatedUser(id: id, userPrincipalName: "person\(number)@\(domain)", kind: template.kind, profile: profile)
    }
}
