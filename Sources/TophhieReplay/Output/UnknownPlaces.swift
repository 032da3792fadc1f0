import TophhieAuth
import TophhieJSON
import TophhieRules
import TophhieRulesFast

/// Counts the sign-ins whose place the rules take as unknown (`TophhieSignInEvent.locationUnknown`:
/// no country, or coordinates of (0, 0), out of range or missing), for replay's summary, as the
/// poll line counts them live.
struct UnknownPlaces {
    private static let country = ["location", "countryOrRegion"]
    private static let latitude = ["location", "geoCoordinates", "latitude"]
    private static let longitude = ["location", "geoCoordinates", "longitude"]

    /// Whether the events were read with their place: a fast engine whose rules read no place
    /// keeps none, and every sign-in would look unknown.
    /// - Parameter paths: the paths events are read with; nil when they are read whole.
    static func counted(readingPaths paths: [[String]]?) -> Bool {
        guard let paths else { return true }
        return [country, latitude, longitude].allSatisfy(paths.contains)
    }

    /// Whether `event`'s place is unknown to the rules.
    static func isUnknown(_ event: any RuleEvent) -> Bool {
        TophhieSignInEvent.locationUnknown(country: event.field(at: country)?.stringValue,
                                           latitude: event.field(at: latitude)?.doubleValue,
                                           longitude: event.field(at: longitude)?.doubleValue)
    }

    /// The place's slots, found once for a replay's events: finding each path again for every
    /// sign-in was a twentieth of the engine's thread in an alert-heavy replay.
    struct Slots: Sendable {
        let country = FieldSlot.existing(UnknownPlaces.country)
        let latitude = FieldSlot.existing(UnknownPlaces.latitude)
        let longitude = FieldSlot.existing(UnknownPlaces.longitude)
    }

    /// `isUnknown(event)`, its place read at `slots`.
    static func isUnknown(_ event: any FastEvent, at slots: Slots) -> Bool {
        func value(_ slot: FieldSlot?) -> JSONValue? { slot.flatMap { event.field(slot: $0) } }
        return TophhieSignInEvent.locationUnknown(country: value(slots.country)?.stringValue,
                                                  latitude: value(slots.latitude)?.doubleValue,
                                                  longitude: value(slots.longitude)?.doubleValue)
    }
}
