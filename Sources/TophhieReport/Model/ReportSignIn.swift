import Foundation
import TophhieAuth
import TophhieJSON

/// What the report shows of one sign-in: read from its record's fields, nothing else kept.
public struct ReportSignIn: Sendable, Hashable {
    public var id: String
    public var time: Date
    public var errorCode: Int64
    /// False for the non-interactive stream (token refreshes, apps acting for the person).
    public var interactive: Bool
    public var city: String
    public var state: String
    public var country: String
    /// Coordinates a place can have (latitude within ±90, longitude within ±180), else nil.
    public var latitude: Double?
    public var longitude: Double?
    public var device: String
    public var app: String
    public var ipAddress: String
    /// Whose sign-in it was, as the record names the account.
    public var userPrincipalName: String
    public var userDisplayName: String

    public init(id: String, time: Date, errorCode: Int64, interactive: Bool = true, city: String = "", state: String = "", country: String = "",
                latitude: Double? = nil, longitude: Double? = nil, device: String = "", app: String = "", ipAddress: String = "",
                userPrincipalName: String = "", userDisplayName: String = "") {
        self.id = id
        self.time = time
        self.errorCode = errorCode
        self.interactive = interactive
        self.city = city
        self.state = state
        self.country = country
        let placed = latitude != nil && longitude != nil && !TophhieSignInEvent.outOfRange(latitude: latitude, longitude: longitude)
        self.latitude = placed ? latitude : nil
        self.longitude = placed ? longitude : nil
        self.device = device
        self.app = app
        self.ipAddress = ipAddress
        self.userPrincipalName = userPrincipalName
        self.userDisplayName = userDisplayName
    }

    /// The fields read, in the order `init(slots:)` takes them.
    static let paths: [[String]] = [
        ["id"], ["createdDateTime"], ["status", "errorCode"], ["isInteractive"], ["signInEventTypes"],
        ["location", "city"], ["location", "state"], ["location", "countryOrRegion"],
        ["location", "geoCoordinates", "latitude"], ["location", "geoCoordinates", "longitude"],
        ["deviceDetail", "displayName"], ["deviceDetail", "operatingSystem"], ["deviceDetail", "browser"],
        ["appDisplayName"], ["ipAddress"], ["userPrincipalName"], ["userDisplayName"],
    ]

    /// A sign-in from its record's fields (`paths`); nil for one the agent would skip (no id, no
    /// time, no whole error code), as the live poll's decoder skips it.
    init?(slots: [JSONValue?]) {
        guard case .string(let id)? = slots[0], !id.isEmpty, let timeText = slots[1]?.stringValue, let time = GraphTimestamp.parse(timeText) else { return nil }
        guard let code = TophhieSignInEvent.errorCode(slots[2]) else { return nil }
        var interactive = slots[3]?.boolValue ?? true
        if case .array(let types)? = slots[4], types.contains(.string("nonInteractiveUser")) { interactive = false }
        func text(_ index: Int) -> String { slots[index]?.stringValue ?? "" }
        let system = text(11), browser = text(12)
        let device = text(10).isEmpty ? [browser, system].filter { !$0.isEmpty }.joined(separator: " on ") : text(10)
        self.init(id: id, time: time, errorCode: code, interactive: interactive, city: text(5), state: text(6), country: text(7),
                  latitude: slots[8]?.doubleValue, longitude: slots[9]?.doubleValue, device: device, app: text(13), ipAddress: text(14),
                  userPrincipalName: text(15), userDisplayName: text(16))
    }

    /// A sign-in from its whole record (a Graph reply already decoded).
    public init?(record: JSONValue) {
        self.init(slots: Self.paths.map { record.value(at: $0) })
    }

    /// The place as a person names it: `London, GB`.
    public var placeName: String {
        [city, country].filter { !$0.isEmpty }.joined(separator: ", ")
    }
}
