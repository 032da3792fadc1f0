import Foundation

/// The signed-in user's profile as `GET /me` returns it.
///
/// Only `id` and `userPrincipalName` are always present; every other field depends on what the
/// account has set.
public struct TophhieUserProfile: Codable, Sendable, Equatable, Identifiable {
    public let id: String
    public let userPrincipalName: String
    public let displayName: String?
    public let givenName: String?
    public let surname: String?
    public let mail: String?
    public let jobTitle: String?
    public let streetAddress: String?
    public let city: String?
    public let state: String?
    public let postalCode: String?
    public let country: String?
    public let preferredLanguage: String?
    public let mobilePhone: String?
    public let officeLocation: String?
    public let businessPhones: [String]?

    public init(id: String, userPrincipalName: String, displayName: String? = nil, givenName: String? = nil, surname: String? = nil, mail: String? = nil, jobTitle: String? = nil, streetAddress: String? = nil, city: String? = nil, state: String? = nil, postalCode: String? = nil, country: String? = nil, preferredLanguage: String? = nil, mobilePhone: String? = nil, officeLocation: String? = nil, businessPhones: [String]? = nil) {
        self.id = id
        self.userPrincipalName = userPrincipalName
        self.displayName = displayName
        self.givenName = givenName
        self.surname = surname
        self.mail = mail
        self.jobTitle = jobTitle
        self.streetAddress = streetAddress
        self.city = city
        self.state = state
        self.postalCode = postalCode
        self.country = country
        self.preferredLanguage = preferredLanguage
        self.mobilePhone = mobilePhone
        self.officeLocation = officeLocation
        self.businessPhones = businessPhones
    }

    /// The `$select` list sent with `GET /me`: Graph's default set leaves out the address fields,
    /// and a `$select` replaces the defaults, so every field read is named.
    public static let selectFields = [
        "id", "userPrincipalName", "displayName", "givenName", "surname", "mail", "jobTitle",
        "streetAddress", "city", "state", "postalCode", "country", "preferredLanguage",
        "mobilePhone", "officeLocation", "businessPhones",
    ]
}
