import Foundation
import TophhieJSON

/// Builds realistic Graph `signIn` objects in beta's shape (v1.0's properties and beta's
/// `signInEventTypes`, `authenticationDetails`, `authenticationProtocol`,
/// `originalTransferMethod`, `authenticationRequirement`…), deterministic from a seed. The
/// simulator's v1.0 leaves beta's properties out.
///
/// The same seed, account and calls give byte-identical events, so demos, tests and benchmarks can
/// share histories without shipping large files.
public struct SignInFactory: Sendable {
    /// Whose sign-ins these are.
    public struct Account: Sendable, Equatable {
        public var userID: String
        public var userPrincipalName: String
        public var displayName: String

        public init(userID: String, userPrincipalName: String, displayName: String) {
            self.userID = userID
            self.userPrincipalName = userPrincipalName
            self.displayName = displayName
        }
    }

    /// Where a sign-in came from.
    public struct Place: Sendable, Equatable, Codable {
        public var city: String
        public var state: String
        public var countryOrRegion: String
        public var latitude: Double
        public var longitude: Double
        /// The first three octets of the addresses used there, e.g. `"81.2.69"`.
        public var ipPrefix: String
        /// The network's autonomous system number (beta's `autonomousSystemNumber`).
        public var asn: Int

        public init(city: String, state: String, countryOrRegion: String, latitude: Double, longitude: Double, ipPrefix: String, asn: Int = 0) {
            self.city = city
            self.state = state
            self.countryOrRegion = countryOrRegion
            self.latitude = latitude
            self.longitude = longitude
            self.ipPrefix = ipPrefix
            self.asn = asn
        }

        public static let london = Place(city: "London", state: "England", countryOrRegion: "GB", latitude: 51.5073, longitude: -0.1277, ipPrefix: "81.2.69", asn: 2856)
        public static let manchester = Place(city: "Manchester", state: "England", countryOrRegion: "GB", latitude: 53.4807, longitude: -2.2426, ipPrefix: "86.142.11", asn: 2856)
        public static let newYork = Place(city: "New York", state: "New York", countryOrRegion: "US", latitude: 40.7128, longitude: -74.006, ipPrefix: "72.229.28", asn: 12271)
        public static let saoPaulo = Place(city: "Sao Paulo", state: "Sao Paulo", countryOrRegion: "BR", latitude: -23.5505, longitude: -46.6333, ipPrefix: "177.71.207", asn: 28573)
        public static let lagos = Place(city: "Lagos", state: "Lagos", countryOrRegion: "NG", latitude: 6.5244, longitude: 3.3792, ipPrefix: "105.112.96", asn: 36873)
        public static let moscow = Place(city: "Moscow", state: "Moscow", countryOrRegion: "RU", latitude: 55.7558, longitude: 37.6173, ipPrefix: "95.165.28", asn: 8402)
        public static let sydney = Place(city: "Sydney", state: "New South Wales", countryOrRegion: "AU", latitude: -33.8688, longitude: 151.2093, ipPrefix: "101.181.47", asn: 1221)

        public static let paris = Place(city: "Paris", state: "Ile-de-France", countryOrRegion: "FR", latitude: 48.8566, longitude: 2.3522, ipPrefix: "90.84.12", asn: 3215)
        public static let berlin = Place(city: "Berlin", state: "Berlin", countryOrRegion: "DE", latitude: 52.52, longitude: 13.405, ipPrefix: "91.64.33", asn: 3320)
        public static let toronto = Place(city: "Toronto", state: "Ontario", countryOrRegion: "CA", latitude: 43.6532, longitude: -79.3832, ipPrefix: "99.224.61", asn: 812)
        public static let tokyo = Place(city: "Tokyo", state: "Tokyo", countryOrRegion: "JP", latitude: 35.6762, longitude: 139.6503, ipPrefix: "126.0.44", asn: 17676)
        public static let dublin = Place(city: "Dublin", state: "Dublin", countryOrRegion: "IE", latitude: 53.3498, longitude: -6.2603, ipPrefix: "86.40.17", asn: 5466)
        public static let madrid = Place(city: "Madrid", state: "Madrid", countryOrRegion: "ES", latitude: 40.4168, longitude: -3.7038, ipPrefix: "83.44.9", asn: 3352)
        public static let amsterdam = Place(city: "Amsterdam", state: "North Holland", countryOrRegion: "NL", latitude: 52.3676, longitude: 4.9041, ipPrefix: "84.104.5", asn: 33915)
        public static let stockholm = Place(city: "Stockholm", state: "Stockholm", countryOrRegion: "SE", latitude: 59.3293, longitude: 18.0686, ipPrefix: "90.224.30", asn: 3301)
        public static let singapore = Place(city: "Singapore", state: "Singapore", countryOrRegion: "SG", latitude: 1.3521, longitude: 103.8198, ipPrefix: "116.86.21", asn: 9506)

        /// The named places, keyed by the names scenario files use.
        public static let named: [String: Place] = [
            "london": .london, "manchester": .manchester, "newYork": .newYork, "saoPaulo": .saoPaulo,
            "lagos": .lagos, "moscow": .moscow, "sydney": .sydney, "paris": .paris, "berlin": .berlin,
            "toronto": .toronto, "tokyo": .tokyo, "dublin": .dublin, "madrid": .madrid, "amsterdam": .amsterdam,
            "stockholm": .stockholm, "singapore": .singapore,
        ]

        /// Homes for `--people`, one country each, in the order people get them. The places the
        /// demo and the examples attack from (Lagos, Moscow, Sao Paulo) are nobody's home, so they
        /// stay foreign to every person.
        public static let homes: [Place] = [
            .london, .newYork, .paris, .berlin, .toronto, .tokyo, .sydney, .dublin, .madrid, .amsterdam, .stockholm, .singapore,
        ]
    }

    /// The device and browser a sign-in used.
    public struct Device: Sendable, Equatable {
        public var deviceID: String
        public var displayName: String?
        public var operatingSystem: String
        public var browser: String
        public var isCompliant: Bool?
        public var isManaged: Bool?
        public var trustType: String?

        public init(deviceID: String, displayName: String?, operatingSystem: String, browser: String, isCompliant: Bool?, isManaged: Bool?, trustType: String?) {
            self.deviceID = deviceID
            self.displayName = displayName
            self.operatingSystem = operatingSystem
            self.browser = browser
            self.isCompliant = isCompliant
            self.isManaged = isManaged
            self.trustType = trustType
        }

        public static let laptop = Device(deviceID: "3c5e1d0a-8f1b-4a57-9d61-0b7f2e4c9a11", displayName: "JANE-LAPTOP", operatingSystem: "Windows 11", browser: "Edge 126.0.0", isCompliant: true, isManaged: true, trustType: "Azure AD joined")
        public static let phone = Device(deviceID: "", displayName: nil, operatingSystem: "iOS 17", browser: "Mobile Safari", isCompliant: nil, isManaged: nil, trustType: nil)
        public static let unknownLinux = Device(deviceID: "", displayName: nil, operatingSystem: "Linux", browser: "Firefox 115.0", isCompliant: false, isManaged: false, trustType: nil)
    }

    /// The application signed in to.
    public struct App: Sendable, Equatable {
        public var appID: String
        public var displayName: String
        public var clientAppUsed: String
        public var resourceDisplayName: String
        public var resourceID: String

        public init(appID: String, displayName: String, clientAppUsed: String, resourceDisplayName: String, resourceID: String) {
            self.appID = appID
            self.displayName = displayName
            self.clientAppUsed = clientAppUsed
            self.resourceDisplayName = resourceDisplayName
            self.resourceID = resourceID
        }

        public static let office = App(appID: "4765445b-32c6-49b0-83e6-1d93765276ca", displayName: "OfficeHome", clientAppUsed: "Browser", resourceDisplayName: "Office 365 SharePoint Online", resourceID: "00000003-0000-0ff1-ce00-000000000000")
        public static let outlook = App(appID: "27922004-5251-4030-b22d-91ecd9a37ea4", displayName: "Outlook Mobile", clientAppUsed: "Mobile Apps and Desktop clients", resourceDisplayName: "Office 365 Exchange Online", resourceID: "00000002-0000-0ff1-ce00-000000000000")
        public static let teams = App(appID: "1fec8e78-bce4-4aaf-ab1b-5451cc387264", displayName: "Microsoft Teams", clientAppUsed: "Mobile Apps and Desktop clients", resourceDisplayName: "Microsoft Teams Services", resourceID: "cc15fd57-2c6c-4117-a88c-83b1d56b4bbe")
        public static let graphExplorer = App(appID: "de8bc8b5-d9f9-48b1-a8ad-b748da725064", displayName: "Graph Explorer", clientAppUsed: "Browser", resourceDisplayName: "Microsoft Graph", resourceID: "00000003-0000-0000-c000-000000000000")
        public static let legacyIMAP = App(appID: "00000002-0000-0ff1-ce00-000000000000", displayName: "Office 365 Exchange Online", clientAppUsed: "IMAP4", resourceDisplayName: "Office 365 Exchange Online", resourceID: "00000002-0000-0ff1-ce00-000000000000")
    }

    /// How a sign-in was made, in beta's words.
    public struct Method: Sendable, Equatable {
        /// `authenticationProtocol`: `none`, `deviceCode`, `ropc`…
        public var authenticationProtocol: String
        /// `originalTransferMethod`: `deviceCodeFlow` on a token a device code was redeemed for.
        public var originalTransferMethod: String
        /// `incomingTokenType`: what the client presented (`none`, `refreshToken`…).
        public var incomingTokenType: String
        public var userAgent: String

        public init(authenticationProtocol: String, originalTransferMethod: String, incomingTokenType: String, userAgent: String) {
            self.authenticationProtocol = authenticationProtocol
            self.originalTransferMethod = originalTransferMethod
            self.incomingTokenType = incomingTokenType
            self.userAgent = userAgent
        }

        static let edge = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0"
        /// A person at a browser or an app's sign-in page.
        public static let browser = Method(authenticationProtocol: "none", originalTransferMethod: "none", incomingTokenType: "none", userAgent: edge)
        /// An app renewing its token with a refresh token it holds (non-interactive).
        public static let refresh = Method(authenticationProtocol: "none", originalTransferMethod: "none", incomingTokenType: "refreshToken", userAgent: "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17726; Pro)")
        /// The person entering a device code at microsoft.com/devicelogin (interactive).
        public static let deviceCodeEntry = Method(authenticationProtocol: "deviceCode", originalTransferMethod: "none", incomingTokenType: "none", userAgent: edge)
        /// The device that asked for the code redeeming it (non-interactive).
        public static let deviceCodeRedemption = Method(authenticationProtocol: "none", originalTransferMethod: "deviceCodeFlow", incomingTokenType: "none", userAgent: "python-requests/2.31.0")
        /// A password sent straight to the token endpoint (resource owner password credentials).
        public static let ropc = Method(authenticationProtocol: "ropc", originalTransferMethod: "none", incomingTokenType: "none", userAgent: "BAV2ROPC")
    }

    /// Failure texts for the error codes the factory uses, as the sign-in log words them.
    public static let failureReasons: [Int: (reason: String, details: String?)] = [
        50126: ("Error validating credentials due to invalid username or password.", "The user didn't enter the right credentials. It's expected to see some number of these errors in your logs due to users making mistakes."),
        50053: ("The account is locked, you've tried to sign in too many times with an incorrect user ID or password.", nil),
        50074: ("Strong Authentication is required.", "The user is required to complete a second factor challenge."),
        50076: ("Due to a configuration change made by your administrator, or because you moved to a new location, you must use multi-factor authentication to access the resource.", "MFA required in Azure AD"),
        500121: ("Authentication failed during strong authentication request.", "The user didn't complete the MFA prompt."),
        53003: ("Access has been blocked by Conditional Access policies. The access policy does not allow token issuance.", nil),
        50057: ("The user account is disabled.", nil),
        50140: ("This error occurred due to 'Keep me signed in' interrupt when the user was signing in.", nil),
    ]

    public var account: Account
    public var home: Place
    private var random: SeededRandom

    /// Creates a factory for `account` whose usual location is `home`.
    public init(seed: UInt64, account: Account, home: Place = .london) {
        self.account = account
        self.home = home
        self.random = SeededRandom(seed: seed)
    }

    /// One sign-in at `date`.
    /// - Parameters:
    ///   - errorCode: 0 for success, else a failure code (see `failureReasons`).
    ///   - riskLevel: `none`, `low`, `medium`, `high` or `hidden`.
    public mutating func signIn(
        at date: Date,
        place: Place? = nil,
        device: Device = .laptop,
        app: App = .office,
        errorCode: Int = 0,
        interactive: Bool = true,
        riskLevel: String = "none",
        method: Method? = nil,
        singleFactor: Bool? = nil,
        mfaDenied: Bool = false
    ) -> JSONValue {
        let method = method ?? (interactive ? .browser : .refresh)
        let place = place ?? home
        // Jitter within the second so events never share a timestamp by accident.
        let ticks = Double(Int.random(in: 0..<10_000_000, using: &random)) / 10_000_000
        let created = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down) + ticks)
        let ip = "\(place.ipPrefix).\(Int.random(in: 2...254, using: &random))"
        var failure = errorCode == 0 ? nil : Self.failureReasons[errorCode] ?? ("Other.", nil)
        if mfaDenied { failure?.details = Self.mfaDeniedDetail }
        let caStatus: String = errorCode == 53003 ? "failure" : (errorCode == 0 ? "success" : "notApplied")
        let policies: [JSONValue] = [
            .object([
                "id": .string("6701123a-b4c6-48af-8565-565c8bf7cabc"),
                "displayName": .string("Require MFA for all users"),
                "enforcedGrantControls": .array([.string("Mfa")]),
                "enforcedSessionControls": .array([]),
                "result": .string(errorCode == 53003 ? "failure" : (errorCode == 0 ? "success" : "notApplied")),
            ]),
        ]
        let risky = riskLevel != "none"
        return .object([
            "id": .string(random.guid()),
            "createdDateTime": .string(GraphTimestamp.graphText(created)),
            "userDisplayName": .string(account.displayName),
            "userPrincipalName": .string(account.userPrincipalName.lowercased()),
            "userId": .string(account.userID),
            "appId": .string(app.appID),
            "appDisplayName": .string(app.displayName),
            "ipAddress": .string(ip),
            "clientAppUsed": .string(app.clientAppUsed),
            "correlationId": .string(random.guid()),
            "conditionalAccessStatus": .string(caStatus),
            "isInteractive": .bool(interactive),
            "riskDetail": .string("none"),
            "riskLevelAggregated": .string(riskLevel),
            "riskLevelDuringSignIn": .string(riskLevel),
            "riskState": .string(risky ? "atRisk" : "none"),
            "riskEventTypes": .array(risky ? [.string("unfamiliarFeatures")] : []),
            "riskEventTypes_v2": .array(risky ? [.string("unfamiliarFeatures")] : []),
            "resourceDisplayName": .string(app.resourceDisplayName),
            "resourceId": .string(app.resourceID),
            "status": .object([
                "errorCode": .int(Int64(errorCode)),
                "failureReason": failure.map { .string($0.reason) } ?? .null,
                "additionalDetails": failure?.details.map { .string($0) } ?? .null,
            ]),
            "deviceDetail": .object([
                "deviceId": .string(device.deviceID),
                "displayName": device.displayName.map { .string($0) } ?? .null,
                "operatingSystem": .string(device.operatingSystem),
                "browser": .string(device.browser),
                "isCompliant": device.isCompliant.map { .bool($0) } ?? .null,
                "isManaged": device.isManaged.map { .bool($0) } ?? .null,
                "trustType": device.trustType.map { .string($0) } ?? .null,
            ]),
            "location": .object([
                "city": .string(place.city),
                "state": .string(place.state),
                "countryOrRegion": .string(place.countryOrRegion),
                "geoCoordinates": .object([
                    "altitude": .null,
                    "latitude": .double(place.latitude),
                    "longitude": .double(place.longitude),
                ]),
            ]),
            "appliedConditionalAccessPolicies": .array(policies),
            "signInEventTypes": .array([.string(interactive ? "interactiveUser" : "nonInteractiveUser")]),
            "authenticationProtocol": .string(method.authenticationProtocol),
            "originalTransferMethod": .string(method.originalTransferMethod),
            "incomingTokenType": .string(method.incomingTokenType),
            "userAgent": .string(method.userAgent),
            "authenticationRequirement": .string((singleFactor ?? !interactive) ? "singleFactorAuthentication" : "multiFactorAuthentication"),
            "authenticationDetails": .array(Self.authenticationDetails(at: created, interactive: interactive, errorCode: errorCode, singleFactor: singleFactor ?? !interactive, mfaDenied: mfaDenied)),
            "autonomousSystemNumber": .int(Int64(place.asn)),
            "networkLocationDetails": .array([]),
            "userType": .string("member"),
            "tokenIssuerType": .string("AzureAD"),
        ])
    }

    /// `status.additionalDetails` when the person denied the MFA prompt, as Microsoft's Sentinel
    /// rules quote it.
    public static let mfaDeniedDetail = "MFA Denied; user declined the authentication"

    /// The steps of a sign-in as beta's `authenticationDetails` lists them.
    static func authenticationDetails(at time: Date, interactive: Bool, errorCode: Int, singleFactor: Bool, mfaDenied: Bool) -> [JSONValue] {
        func step(_ method: String, _ succeeded: Bool, _ detail: String, _ requirement: String) -> JSONValue {
            .object([
                "authenticationStepDateTime": .string(GraphTimestamp.graphText(time)),
                "authenticationMethod": .string(method),
                "authenticationMethodDetail": .null,
                "succeeded": .bool(succeeded),
                "authenticationStepResultDetail": .string(detail),
                "authenticationStepRequirement": .string(requirement),
            ])
        }
        if !interactive {
            return [step("Previously satisfied", errorCode == 0, "First factor requirement satisfied by claim in the token", "Primary authentication")]
        }
        if errorCode == 50126 {
            return [step("Password", false, "Invalid username or password or Invalid on-premise username or password.", "Primary authentication")]
        }
        var steps = [step("Password", true, "Correct password", "Primary authentication")]
        if mfaDenied {
            steps.append(step("Mobile app notification", false, mfaDeniedDetail, "Multifactor authentication"))
        } else if errorCode == 500121 {
            steps.append(step("Mobile app notification", false, "MFA request timed out", "Multifactor authentication"))
        } else if errorCode == 0 && !singleFactor {
            steps.append(step("Mobile app notification", true, "MFA successfully completed", "Multifactor authentication"))
        }
        return steps
    }

    /// A normal stretch of sign-ins from home: a few a day, mostly daytime, a rare typo, laptop
    /// and phone, oldest first.
    /// - Parameters:
    ///   - endingAt: the latest moment a sign-in may have.
    ///   - days: how many days back the history reaches.
    ///   - perDay: how many sign-ins each day has.
    public mutating func normalHistory(endingAt end: Date, days: Int, perDay: ClosedRange<Int> = 2...5) -> [JSONValue] {
        guard days > 0 else { return [] }
        var events: [(Date, JSONValue)] = []
        let startOfEnd = end.timeIntervalSince1970 - end.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400)
        for dayBack in stride(from: days - 1, through: 0, by: -1) {
            let dayStart = startOfEnd - Double(dayBack) * 86_400
            let count = Int.random(in: perDay, using: &random)
            var times = (0..<count).map { _ in dayStart + Double(Int.random(in: 7 * 3600..<23 * 3600, using: &random)) }
            times.sort()
            for time in times where time <= end.timeIntervalSince1970 - 1 {
                let onPhone = Int.random(in: 0..<3, using: &random) == 0
                // Roughly one in twenty-five sign-ins is a mistyped password, as in real logs.
                let typo = Int.random(in: 0..<25, using: &random) == 0
                let date = Date(timeIntervalSince1970: time)
                let event = signIn(
                    at: date,
                    device: onPhone ? .phone : .laptop,
                    app: onPhone ? .outlook : (Bool.random(using: &random) ? .office : .teams),
                    errorCode: typo ? 50126 : 0
                )
                events.append((date, event))
            }
        }
        return events.map(\.1)
    }

    /// An app renewing its token every hour, as mail and chat apps do, from `place` on `device`:
    /// non-interactive sign-ins from `from` to `to`, oldest first.
    public mutating func tokenRefreshes(from start: Date, to end: Date, every interval: TimeInterval = 3600, place: Place? = nil,
                                        device: Device = .phone, app: App = .outlook, method: Method = .refresh) -> [JSONValue] {
        var events: [JSONValue] = []
        var time = start
        while time <= end {
            events.append(signIn(at: time, place: place, device: device, app: app, interactive: false, method: method))
            time = time.addingTimeInterval(interval)
        }
        return events
    }

    /// A run of failed sign-ins `spacing` seconds apart from `place`, optionally followed by a success.
    public mutating func failureBurst(
        at start: Date,
        count: Int,
        spacing: TimeInterval = 20,
        place: Place,
        device: Device = .unknownLinux,
        app: App = .office,
        errorCode: Int = 50126,
        endingWithSuccess: Bool = false
    ) -> [JSONValue] {
        var events: [JSONValue] = []
        for index in 0..<max(0, count) {
            events.append(signIn(at: start.addingTimeInterval(Double(index) * spacing), place: place, device: device, app: app, errorCode: errorCode))
        }
        if endingWithSuccess {
            events.append(signIn(at: start.addingTimeInterval(Double(max(0, count)) * spacing), place: place, device: device, app: app))
        }
        return events
    }
}
