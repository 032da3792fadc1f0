import Foundation

/// The `impossible_travel` extension: two sign-ins whose great-circle distance over the time
/// between them exceeds a speed, ignoring pairs closer than a minimum distance.
extension EngineRun {
    mutating func observeTravel(_ c: Int, event: any RuleEvent) {
        let rule = plan.correlations[c]
        guard case .impossibleTravel(let spec) = rule.kind,
              let latitude = event.field("location.geoCoordinates.latitude")?.doubleValue,
              let longitude = event.field("location.geoCoordinates.longitude")?.doubleValue,
              (-90...90).contains(latitude), (-180...180).contains(longitude) else { return }
        var groupValues: [String] = []
        for name in rule.groupBy {
            guard let text = event.field(SignInFieldCatalog.resolve(name).path)?.scalarText, !text.isEmpty else { return }
            groupValues.append(text)
        }
        let groupKey = groupValues.map { $0.lowercased() }.joined(separator: "\u{1F}")
        let ruleKey = rule.metadata.id
        let alertEvent = AlertFactory.alertEvent(event)
        let here = EngineState.Place(id: event.eventID, time: event.eventTime, latitude: latitude, longitude: longitude,
                                     label: alertEvent.location ?? String(format: "%.2f,%.2f", latitude, longitude), detail: alertEvent)
        // Taken out of the state while it changes, so appending does not copy the whole list.
        var places = state.places[ruleKey]?.removeValue(forKey: groupKey) ?? []
        if updated.contains(event.eventID) { places.removeAll { $0.id == event.eventID } }

        // Places stay sorted by time; compare with the neighbours in time only. By the triangle
        // inequality, if any remembered sign-in is too far for the time between, so is one of
        // the consecutive pairs it spans — and comparing neighbours keeps this O(log n).
        let keepAfter = here.time.addingTimeInterval(-(rule.timespan.interval + settings.lookback))
        // Trimmed in batches: removing from the front shifts the whole list.
        if let oldest = places.first, oldest.time < keepAfter, places.count >= 64,
           let firstKept = places.firstIndex(where: { $0.time >= keepAfter }), firstKept >= places.count / 4 {
            places.removeFirst(firstKept)
        }
        var low = 0, high = places.count
        while low < high {
            let mid = (low + high) / 2
            if (places[mid].time, places[mid].id) < (here.time, here.id) { low = mid + 1 } else { high = mid }
        }
        var best: (place: EngineState.Place, distance: Double, speed: Double)?
        for index in [low - 1, low] where places.indices.contains(index) && places[index].id != here.id {
            let place = places[index]
            let gap = abs(here.time.timeIntervalSince(place.time))
            guard gap <= rule.timespan.interval else { continue }
            let distance = EngineRun.greatCircleKm(place.latitude, place.longitude, latitude, longitude)
            guard distance >= spec.minDistanceKm else { continue }
            let speed = gap == 0 ? Double.infinity : distance / (gap / 3600)
            guard speed > spec.maxSpeedKmh else { continue }
            if best.map({ speed > $0.speed || (speed == $0.speed && place.id < $0.place.id) }) ?? true {
                best = (place, distance, speed)
            }
        }
        if let best {
            let other = best.place
            let otherEvent = other.detail
            let pair = [otherEvent, alertEvent].sorted { ($0.time, $0.id) < ($1.time, $1.id) }
            let group = zip(rule.groupBy, groupValues).map { AlertGroupValue(field: $0, value: $1) }
            let from = pair[0].id == other.id ? other.label : here.label
            let to = pair[0].id == other.id ? here.label : other.label
            let gap = abs(here.time.timeIntervalSince(other.time))
            let speedText = best.speed.isFinite ? "\(Int(best.speed.rounded())) km/h" : "at the same instant"
            let summary = "\(Int(best.distance.rounded())) km from \(from) to \(to) in \(AlertFactory.duration(gap)) (\(speedText))"
            emit(metadata: rule.metadata, options: rule.options, defaultSuppress: rule.timespan.interval,
                 group: group, groupKey: groupKey, events: pair, eventCount: 2, windowClose: pair[1].time, summary: summary,
                 episodeFrom: pair[1].time)
        }
        places.insert(here, at: low)
        state.places[ruleKey, default: [:]][groupKey] = places
    }

    /// Haversine distance on a sphere of the Earth's mean radius.
    static func greatCircleKm(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = 6371.0088
        let φ1 = lat1 * .pi / 180, φ2 = lat2 * .pi / 180
        let dφ = (lat2 - lat1) * .pi / 180, dλ = (lon2 - lon1) * .pi / 180
        let a = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * r * asin(min(1, sqrt(a)))
    }
}
