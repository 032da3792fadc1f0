import Foundation
import TophhieJSON

/// The fields to change with `PATCH /me`.
///
/// | value | effect |
/// | --- | --- |
/// | `nil` | left untouched (not sent) |
/// | `""` | cleared (sent as JSON `null`) |
/// | any other string | set |
///
/// Only the ten fields a user may edit about themselves exist here.
public struct TophhieProfileUpdate: Sendable, Equatable {
    public var displayName: String?
    public var givenName: String?
    public var surname: String?
    public var jobTitle: String?
    public var streetAddress: String?
    public var city: String?
    public var state: String?
    public var postalCode: String?
    public var country: String?
    /// A BCP-47 tag such as `en-GB`; checked before anything is sent.
    public var preferredLanguage: String?

    public init() {}

    /// The writable fields' names, in the order they are sent.
    public static let fieldNames = [
        "displayName", "givenName", "surname", "jobTitle", "streetAddress",
        "city", "state", "postalCode", "country", "preferredLanguage",
    ]

    /// Whether the update would write anything at all.
    public var hasChanges: Bool { !changes.isEmpty }

    /// The fields that are set, with `nil` meaning "clear", in `fieldNames` order.
    public var changes: [(field: String, value: String?)] {
        let values: [String?] = [displayName, givenName, surname, jobTitle, streetAddress, city, state, postalCode, country, preferredLanguage]
        return zip(Self.fieldNames, values).compactMap { name, value in
            guard let value else { return nil }
            return (name, value.isEmpty ? nil : value)
        }
    }

    /// Sets a field by its Graph name; nil clears nothing (leaves untouched).
    /// - Returns: false when `field` is not one of the ten writable fields.
    @discardableResult
    public mutating func set(_ field: String, to value: String?) -> Bool {
        switch field {
        case "displayName": displayName = value
        case "givenName": givenName = value
        case "surname": surname = value
        case "jobTitle": jobTitle = value
        case "streetAddress": streetAddress = value
        case "city": city = value
        case "state": state = value
        case "postalCode": postalCode = value
        case "country": country = value
        case "preferredLanguage": preferredLanguage = value
        default: return false
        }
        return true
    }

    /// The PATCH body: only the changed fields, cleared ones as `null`, keys in `fieldNames` order.
    public func requestBody() -> Data {
        var parts: [String] = []
        for (field, value) in changes {
            // Each value through the shared JSON encoder; only the key order is ours.
            let encoded = value.map { JSONValue.string($0) } ?? .null
            parts.append("\"\(field)\":" + String(decoding: encoded.canonicalData(), as: UTF8.self))
        }
        return Data(("{" + parts.joined(separator: ",") + "}").utf8)
    }
}
