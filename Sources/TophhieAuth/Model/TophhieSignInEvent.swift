import Foundation
import TophhieJSON

/// One sign-in from `auditLogs/signIns`, with the seed's fields, the other v1.0 fields a detection
/// needs, and the original JSON for anything else (`event.field("deviceDetail.trustType")`).
///
/// Decoding is tolerant: unknown enum values stay strings, absent and null fields are nil.
/// Only `id`, `createdDateTime` and `status.errorCode` are required.
public struct TophhieSignInEvent: Codable, Sendable, Identifiable, Hashable {
    public let id: String
    /// UTC; Graph lists newest first.
    public let createdDateTime: Date
    public let appDisplayName: String?
    public let ipAddress: String?
    public let clientAppUsed: String?
    public let isInteractive: Bool?
    /// `errorCode` 0 is success.
    public let status: Status
    public let deviceDetail: DeviceDetail?
    public let location: Location?

    public let userId: String?
    public let userPrincipalName: String?
    public let appId: String?
    public let correlationId: String?
    /// `success`, `failure`, `notApplied`, or a value newer than this code.
    public let conditionalAccessStatus: String?
    public let riskLevelAggregated: String?
    public let riskLevelDuringSignIn: String?
    public let riskState: String?
    public let riskDetail: String?
    public let riskEventTypes: [String]?
    public let resourceDisplayName: String?

    /// The event exactly as Graph sent it.
    public internal(set) var json: JSONValue
    /// The stream it was read from; for an event read from a file, what its own fields say
    /// (`signInEventTypes`, else `isInteractive`).
    public internal(set) var stream: SignInStream

    /// `status`: the result code and Graph's words for it.
    public struct Status: Codable, Sendable, Hashable {
        public let errorCode: Int
        public let failureReason: String?
        public let additionalDetails: String?
    }

    /// `deviceDetail`: what the device said about itself (attacker-controlled text).
    public struct DeviceDetail: Codable, Sendable, Hashable {
        public let deviceId: String?
        public let displayName: String?
        public let operatingSystem: String?
        public let browser: String?
        public let isCompliant: Bool?
        public let isManaged: Bool?
        public let trustType: String?
    }

    /// `location`: derived by Entra from the IP address.
    public struct Location: Codable, Sendable, Hashable {
        public let city: String?
        public let state: String?
        /// Two-letter code such as `GB`.
        public let countryOrRegion: String?
        public let geoCoordinates: GeoCoordinates?
    }

    /// `location.geoCoordinates`.
    public struct GeoCoordinates: Codable, Sendable, Hashable {
        public let latitude: Double?
        public let longitude: Double?
        public let altitude: Double?
    }

    /// Whether the sign-in succeeded (`status.errorCode == 0`).
    public var wasSuccessful: Bool { status.errorCode == 0 }

    /// "City, Country", or whichever of the two is known; nil when neither is.
    public var locationText: String? {
        let parts = [location?.city, location?.countryOrRegion].compactMap { $0?.trimmed }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// "Safari on iOS", or whichever of the two is known; nil when neither is.
    public var deviceText: String? {
        let browser = deviceDetail?.browser?.trimmed.nonEmpty
        let system = deviceDetail?.operatingSystem?.trimmed.nonEmpty
        switch (browser, system) {
        case let (b?, s?): return "\(b) on \(s)"
        case let (b?, nil): return b
        case let (nil, s?): return s
        case (nil, nil): return nil
        }
    }

    /// What an event's own fields say of its stream: beta's `signInEventTypes`, else
    /// `isInteractive`; interactive when neither says.
    static func stream(of json: JSONValue) -> SignInStream {
        if case .array(let types)? = json["signInEventTypes"] {
            let names = types.compactMap(\.stringValue)
            if names.contains(SignInStream.interactive.eventType) { return .interactive }
            if names.contains(SignInStream.nonInteractive.eventType) { return .nonInteractive }
        }
        return json["isInteractive"]?.boolValue == false ? .nonInteractive : .interactive
    }

    /// Any field of the original JSON by dotted path; nil when absent.
    public func field(_ path: String) -> JSONValue? { json.value(atPath: path) }

    /// Whether the record's coordinates are no place's (a latitude past ±90, a longitude past
    /// ±180: an export that swapped them): the place is then unknown to every rule.
    public static func coordinatesOutOfRange(_ json: JSONValue) -> Bool {
        // Member by member, not `value(atPath:)`: every record of an export is asked.
        let coordinates = json["location"]?["geoCoordinates"]
        return outOfRange(latitude: coordinates?["latitude"]?.doubleValue, longitude: coordinates?["longitude"]?.doubleValue)
    }

    /// Whether Entra did not know where the sign-in came from, in either attribute the rules
    /// read: no country (empty or missing), or no coordinates a place has (missing, out of
    /// range, or (0, 0), which Entra writes for "unknown" in AD FS and some non-interactive
    /// records). The rules then take that attribute as no place.
    public static func locationUnknown(_ json: JSONValue) -> Bool {
        locationUnknown(country: json.value(atPath: "location.countryOrRegion")?.stringValue,
                        latitude: json.value(atPath: "location.geoCoordinates.latitude")?.doubleValue,
                        longitude: json.value(atPath: "location.geoCoordinates.longitude")?.doubleValue)
    }

    /// How the poll line and replay's summary count them: "3 with an unknown location (no
    /// place to the rules)".
    public static func unknownLocationsText(_ count: Int) -> String {
        "\(count) with an unknown location (no place to the rules)"
    }

    /// `locationUnknown(_:)` of the three values it reads.
    public static func locationUnknown(country: String?, latitude: Double?, longitude: Double?) -> Bool {
        guard let latitude, let longitude else { return true }
        return (country ?? "").isEmpty || outOfRange(latitude: latitude, longitude: longitude) || (latitude == 0 && longitude == 0)
    }

    /// Whether a latitude past ±90 or a longitude past ±180 is given (absent ones are not out of range).
    public static func outOfRange(latitude: Double?, longitude: Double?) -> Bool {
        (latitude.map { abs($0) > 90 } ?? false) || (longitude.map { abs($0) > 180 } ?? false)
    }

    /// An error code as the decoder reads it: a whole number, or one written as text (`"50126"`,
    /// Log Analytics' `ResultType`); nil for anything else.
    public static func errorCode(_ value: JSONValue?) -> Int64? {
        value?.intValue ?? value?.stringValue.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Reads an event from Graph's JSON.
    /// - Throws: `MalformedSignIn` naming the field when `id`, `createdDateTime` or
    ///   `status.errorCode` is missing or of the wrong type.
    public init(json: JSONValue) throws {
        guard case .object = json else { throw MalformedSignIn(id: nil, problem: "the event is not a JSON object") }
        guard let id = json["id"]?.stringValue, !id.isEmpty else {
            throw MalformedSignIn(id: nil, problem: "'id' is missing or not a string")
        }
        guard let created = json["createdDateTime"] else {
            throw MalformedSignIn(id: id, problem: "'createdDateTime' is missing")
        }
        guard let text = created.stringValue, let date = GraphTimestamp.parse(text) else {
            throw MalformedSignIn(id: id, problem: "'createdDateTime' is not an ISO-8601 time")
        }
        guard let statusObject = json["status"], case .object = statusObject else {
            throw MalformedSignIn(id: id, problem: "'status' is missing or not an object")
        }
        // An export may write the code as text ("50126", Log Analytics' ResultType): the same number.
        guard let code = Self.errorCode(statusObject["errorCode"]), let errorCode = Int(exactly: code) else {
            throw MalformedSignIn(id: id, problem: "'status.errorCode' is missing or not a whole number")
        }
        self.id = id
        self.createdDateTime = date
        self.json = json
        self.status = Status(errorCode: errorCode, failureReason: statusObject["failureReason"]?.stringValue, additionalDetails: statusObject["additionalDetails"]?.stringValue)
        appDisplayName = json["appDisplayName"]?.stringValue
        ipAddress = json["ipAddress"]?.stringValue
        clientAppUsed = json["clientAppUsed"]?.stringValue
        isInteractive = json["isInteractive"]?.boolValue
        userId = json["userId"]?.stringValue
        userPrincipalName = json["userPrincipalName"]?.stringValue
        appId = json["appId"]?.stringValue
        correlationId = json["correlationId"]?.stringValue
        conditionalAccessStatus = json["conditionalAccessStatus"]?.stringValue
        riskLevelAggregated = json["riskLevelAggregated"]?.stringValue
        riskLevelDuringSignIn = json["riskLevelDuringSignIn"]?.stringValue
        riskState = json["riskState"]?.stringValue
        riskDetail = json["riskDetail"]?.stringValue
        if case .array(let items)? = json["riskEventTypes"] { riskEventTypes = items.compactMap(\.stringValue) } else { riskEventTypes = nil }
        resourceDisplayName = json["resourceDisplayName"]?.stringValue
        stream = Self.stream(of: json)
        if let device = json["deviceDetail"], case .object = device {
            deviceDetail = DeviceDetail(deviceId: device["deviceId"]?.stringValue, displayName: device["displayName"]?.stringValue, operatingSystem: device["operatingSystem"]?.stringValue, browser: device["browser"]?.stringValue, isCompliant: device["isCompliant"]?.boolValue, isManaged: device["isManaged"]?.boolValue, trustType: device["trustType"]?.stringValue)
        } else {
            deviceDetail = nil
        }
        if let place = json["location"], case .object = place {
            var coordinates: GeoCoordinates?
            if let geo = place["geoCoordinates"], case .object = geo {
                coordinates = GeoCoordinates(latitude: geo["latitude"]?.doubleValue, longitude: geo["longitude"]?.doubleValue, altitude: geo["altitude"]?.doubleValue)
            }
            location = Location(city: place["city"]?.stringValue, state: place["state"]?.stringValue, countryOrRegion: place["countryOrRegion"]?.stringValue, geoCoordinates: coordinates)
        } else {
            location = nil
        }
    }

    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONValue(from: decoder))
    }

    /// Encodes the original JSON, so a stored event reads back exactly as Graph sent it.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    public static func == (a: TophhieSignInEvent, b: TophhieSignInEvent) -> Bool { a.json == b.json }

    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// An event Graph returned that could not be read; it is reported and skipped.
public struct MalformedSignIn: Error, Sendable, Hashable, CustomStringConvertible {
    /// The event's id when it had one.
    public let id: String?
    public let problem: String
    public var description: String { "sign-in event \(id ?? "without an id") skipped: \(problem)" }
    /// What names this event across polls: its id, or its problem when it has none.
    public var reportKey: String { id.map { "id:" + $0 } ?? "problem:" + problem }

    /// An element of a page that is not JSON, as every reader reports it.
    public static func damaged(id: String?, _ error: JSONParseError) -> MalformedSignIn {
        damaged(id: id, problem: "\(error.message) at byte \(error.offset) of the event")
    }

    /// An element that is not JSON, `problem` saying where (a file's reader: its line and column).
    public static func damaged(id: String?, problem: String) -> MalformedSignIn {
        MalformedSignIn(id: id, problem: "the event is not valid JSON (\(problem))")
    }
}

extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
    var nonEmpty: String? { isEmpty ? nil : self }
}
