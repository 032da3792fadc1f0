import Foundation
import TophhieRules

/// The `impossible_travel` extension: two sign-ins whose great-circle distance over the time
/// between them exceeds a speed, ignoring pairs closer than a minimum distance and pairs of
/// places both familiar to the group (seen on `familiar-after-days` earlier days).
extension EngineRun {
    static let latitudeSlot = FieldSlot.intern(RuleGraph.latitudePath)
    static let longitudeSlot = FieldSlot.intern(RuleGraph.longitudePath)

    /// One located sign-in of a rule travel correlation `c` references, against the group's
    /// other places within the timespan.
    /// - Parameters:
    ///   - teachesPlace: the sign-in is of a `familiar-from` rule (or the rule has none): it marks its place's day.
    ///   - shared: the event's group under `EnginePlan.sharedGroupSlots` (`group`).
    mutating func observeTravel(_ c: Int, event: any FastEvent, teachesPlace: Bool, shared: inout HashedText??) {
        let plan = self.plan  // one reference for the call (`ingest`)
        let rule = plan.correlationRefs[c]
        guard case .impossibleTravel(let spec) = rule.kind,
              let latitude = event.field(slot: EngineRun.latitudeSlot)?.doubleValue,
              let longitude = event.field(slot: EngineRun.longitudeSlot)?.doubleValue,
              TravelSpec.isTravelEndpoint(latitude: latitude, longitude: longitude) else { return }
        guard let group = group(c, event, shared: &shared) else { return }
        let ruleKey = rule.metadata.id
        let alertEvent = FastAlertEvents.alertEvent(event, places: &placeLines, devices: &deviceLines)
        // The new place's parts, not a place: it is made once, at the end, and moved into the
        // list (a place held beside the list was copied into it, and inserting copied it twice).
        let hereID = alertEvent.id, hereTime = alertEvent.time
        let hereLabel = alertEvent.location ?? String(format: "%.2f,%.2f", latitude, longitude)
        func makeHere() -> FastState.Place {
            FastState.Place(id: hereID, time: hereTime, latitude: latitude, longitude: longitude, label: hereLabel, detail: alertEvent)
        }
        // Swapped out of the run's table of the rule (`TravelTables`) while it changes, so
        // inserting does not copy the whole list; found by index and swapped back in the same
        // place at the end.
        let placesAt = EngineRun.locate(&travelTables.places.tables[c], group.hashed, empty: [])
        travelTables.places.kept[c] = true
        var places: [FastState.Place] = []
        swap(&places, &travelTables.places.tables[c].values[placesAt])
        if !updated.isEmpty, updated.contains(event.eventID) { places.removeAll { $0.id == event.eventID } }

        // Every remembered sign-in within the timespan on either side is compared, not only the
        // neighbours in time: London → Amsterdam → Frankfurt in 12 minutes has two hops under the
        // minimum distance and one pair far over the speed. Nearest in time first, at most
        // `maxTravelComparisons` a side, so one sign-in costs O(log n + k).
        let keepAfter = hereTime.addingTimeInterval(-(rule.timespan.interval + settings.lookback))
        // Trimmed in batches: removing from the front shifts the whole list.
        if let oldest = places.first, oldest.time < keepAfter, places.count >= 64,
           let firstKept = EngineRun.firstPlace(in: places, notBefore: keepAfter), firstKept >= places.count / 4 {
            places.removeFirst(firstKept)
        }
        var low = 0, high = places.count
        while low < high {
            let mid = (low + high) / 2
            if (places[mid].time, places[mid].id) < (hereTime, hereID) { low = mid + 1 } else { high = mid }
        }
        let span = rule.timespan.interval
        let familiarAt = EngineRun.locate(&travelTables.familiar.tables[c], group.hashed, empty: [:])
        travelTables.familiar.kept[c] = true
        var familiarPlaces: [String: FastState.FamiliarPlace] = [:]
        swap(&familiarPlaces, &travelTables.familiar.tables[c].values[familiarAt])
        let hereKey = EngineRun.placeKey(location: alertEvent.location, latitude: latitude, longitude: longitude)
        var best: (place: FastState.Place, distance: Double, speed: Double)?
        // Per side, a sign-in at a spot already met nearer in time, under the same name, cannot
        // give the pair (same distance and familiarity, a longer gap); at the same gap it still
        // can, on its id. A person signs in from a handful of spots, so this skips most of the
        // trigonometry.
        var spots: [(latitude: Double, longitude: Double, gap: TimeInterval, label: String?)] = []
        // Found once: read here, changed in place at the end (nothing is added in between).
        let hereIndex = familiarPlaces.index(forKey: hereKey)
        let hereSeen = hereIndex.map { familiarPlaces.values[$0] }
        // The compared places' familiarity by their label, looked up once a call: a person signs
        // in from a handful of places, and folding and hashing the label of every compared place
        // was a sixth of the comparisons' work.
        var familiarByLabel: [(label: String, seen: FastState.FamiliarPlace?)] = []
        // Given the buffer and an index, not a place: passing a place copied all of it.
        func familiarity(_ buffer: UnsafeBufferPointer<FastState.Place>, _ i: Int) -> FastState.FamiliarPlace? {
            guard let label = buffer[i].detail.location, !label.isEmpty else { return familiarPlaces[EngineRun.placeKey(buffer[i])] }
            if let known = familiarByLabel.first(where: { $0.label == label }) { return known.seen }
            let seen = familiarPlaces[EngineRun.placeKey(label: label)]
            if familiarByLabel.count < 16 { familiarByLabel.append((label, seen)) }
            return seen
        }
        // This sign-in's latitude's cosine, worked out once a call, not once a compared place.
        let cosHere = cos(latitude * .pi / 180)
        // Through a buffer pointer: reading a field of `places[i]` copied the whole place (its
        // strings and detail) first, which cost more than the arithmetic.
        func consider(_ buffer: UnsafeBufferPointer<FastState.Place>, _ i: Int) {
            guard buffer[i].id != hereID else { return }
            let time = buffer[i].time
            let gap = abs(hereTime.timeIntervalSince(time))
            // No trigonometry for a pair that cannot be travel: the great-circle distance is at
            // most the distance along the meridian plus along the parallel. Tested before the
            // spot, since a later sign-in at a spot that fails it fails it too (same bound, longer gap).
            let placeLatitude = buffer[i].latitude, placeLongitude = buffer[i].longitude
            let bound = EngineRun.greatCircleUpperBoundKm(placeLatitude, placeLongitude, latitude, longitude)
            // Multiplied rather than divided: three divisions in a row were most of the loop's
            // time. (A bound, so the last bit of rounding cannot matter: see greatCircleUpperBoundKm.)
            if bound < spec.minDistanceKm || (gap > 0 && bound * 3600 <= spec.maxSpeedKmh * gap) { return }
            if spots.contains(where: { $0.latitude == placeLatitude && $0.longitude == placeLongitude && $0.gap < gap && $0.label == buffer[i].detail.location }) { return }
            if spots.count < 32 { spots.append((placeLatitude, placeLongitude, gap, buffer[i].detail.location)) }
            let distance = EngineRun.distanceKm(haversine: EngineRun.haversine(placeLatitude, placeLongitude, latitude, longitude, cosLatitude2: cosHere))
            guard distance >= spec.minDistanceKm else { return }
            let speed = gap == 0 ? Double.infinity : distance / (gap / 3600)
            guard speed > spec.maxSpeedKmh else { return }
            // Two places this person signs in from on other days (a VPN exit and home, a
            // carrier's egress cities) are not travel.
            let pairDay = EngineRun.day(max(hereTime, time))
            if EngineRun.isFamiliar(hereSeen, before: pairDay, spec: spec)
                && EngineRun.isFamiliar(familiarity(buffer, i), before: pairDay, spec: spec) { return }
            // The nearest such sign-in in time tells the story ("Tokyo, then New York"); the
            // faster pair breaks a tie.
            if best.map({ (gap, -speed, buffer[i].id) < (abs(hereTime.timeIntervalSince($0.place.time)), -$0.speed, $0.place.id) }) ?? true {
                best = (buffer[i], distance, speed)
            }
        }
        places.withUnsafeBufferPointer { buffer in
            var index = low - 1, compared = 0
            while index >= 0, compared < EngineRun.maxTravelComparisons, hereTime.timeIntervalSince(buffer[index].time) <= span {
                consider(buffer, index); index -= 1; compared += 1
            }
            index = low; compared = 0
            spots.removeAll(keepingCapacity: true)
            while index < buffer.count, compared < EngineRun.maxTravelComparisons, buffer[index].time.timeIntervalSince(hereTime) <= span {
                consider(buffer, index); index += 1; compared += 1
            }
        }
        if let best {
            // The pair's unfamiliar sign-ins are what it is about (both, when neither is familiar).
            let pairDay = EngineRun.day(max(hereTime, best.place.time))
            let subjects = [makeHere(), best.place].filter { !EngineRun.isFamiliar(familiarPlaces[EngineRun.placeKey($0)], before: pairDay, spec: spec) }
            // A later sign-in at home that pairs with the same far-away one is the same story.
            let alreadyTold = !subjects.isEmpty && subjects.allSatisfy { state.findings?[$0.id]?.contains(ruleKey) == true }
            if !alreadyTold { tellTravel(rule, groupValues: EventGroup.values(of: event, slots: plan.groupSlots[c]), groupKey: group.key, here: alertEvent, hereLabel: hereLabel, best: best, subjects: subjects) }
        }
        let today = EngineRun.day(hereTime)
        if !teachesPlace {
            // Compared, but no evidence of the person's own: its place's days stay as they were.
        } else if let hereIndex {
            if !familiarPlaces.values[hereIndex].days.contains(today) {
                familiarPlaces.values[hereIndex].days = EngineRun.days(familiarPlaces.values[hereIndex].days, adding: today)
            }
            familiarPlaces.values[hereIndex].lastSeen = max(familiarPlaces.values[hereIndex].lastSeen, hereTime)
        } else {
            familiarPlaces[hereKey] = FastState.FamiliarPlace(days: [today], lastSeen: hereTime)
        }
        swap(&familiarPlaces, &travelTables.familiar.tables[c].values[familiarAt])
        // Most sign-ins come in time order and go at the end: appended, the new place is moved in.
        if low == places.count { places.append(makeHere()) } else { places.insert(makeHere(), at: low) }
        swap(&places, &travelTables.places.tables[c].values[placesAt])
    }

    /// The alert of a travel pair: the nearest such sign-in in time to this one.
    private mutating func tellTravel(_ rule: CorrelationRuleRef, groupValues: [String], groupKey: String, here alertEvent: AlertEvent,
                                     hereLabel: String, best: (place: FastState.Place, distance: Double, speed: Double), subjects: [FastState.Place]) {
        let ruleKey = rule.metadata.id
        let other = best.place
        let otherEvent = other.detail
        let pair = [otherEvent, alertEvent].sorted { ($0.time, $0.id) < ($1.time, $1.id) }
        let shown = zip(rule.groupBy, groupValues).map { AlertGroupValue(field: $0, value: $1) }
        let from = pair[0].id == other.id ? other.label : hereLabel
        let to = pair[0].id == other.id ? hereLabel : other.label
        let gap = abs(alertEvent.time.timeIntervalSince(other.time))
        let speedText = best.speed.isFinite ? "\(Int(best.speed.rounded())) km/h" : "at the same instant"
        let summary = "\(Int(best.distance.rounded())) km from \(from) to \(to) in \(AlertFactory.duration(gap)) (\(speedText))"
        emit(metadata: rule.metadata, options: rule.options, defaultSuppress: rule.timespan.interval,
             group: shown, groupKey: groupKey, events: pair, eventCount: 2, windowClose: pair[1].time, summary: summary,
             episodeFrom: pair[1].time)
        for place in subjects {
            state.findings = state.findings ?? [:]
            let key = HashedText(place.id)
            if state.findings![key]?.contains(ruleKey) != true { state.findings![key, default: []].append(ruleKey) }
        }
    }

    /// Where `table[key]` is, inserting `empty` there first when it is absent: the index stays
    /// good while nothing is added to or removed from the table, so a value can be swapped out,
    /// changed and swapped back without hashing its key again (taking it out and putting it
    /// back hashed it twice and moved the table's entries on removal).
    static func locate<Key: Hashable, Value>(_ table: inout [Key: Value], _ key: Key, empty: Value) -> Dictionary<Key, Value>.Index {
        if let found = table.index(forKey: key) { return found }
        table[key] = empty
        return table.index(forKey: key)!
    }

    /// The travel rules' places and familiar places while a run goes on, by correlation
    /// (`RuleTables`: a located sign-in found its rule's tables by hashing the rule's id twice).
    struct TravelTables {
        var places: RuleTables<[FastState.Place]>
        var familiar: RuleTables<[String: FastState.FamiliarPlace]>

        /// Takes `plan`'s travel rules' tables out of `state`.
        init(plan: EnginePlan, taking state: inout FastState) {
            let ids = { (c: Int) in plan.correlationRefs[c].metadata.id }
            places = RuleTables(count: plan.correlationRefs.count, rules: plan.travel, ids: ids, taking: &state.places)
            // A state without familiar places stays without them until a located sign-in.
            var known = state.familiar ?? [:]
            familiar = RuleTables(count: plan.correlationRefs.count, rules: plan.travel, ids: ids, taking: &known)
            if state.familiar != nil { state.familiar = known }
        }

        /// Puts the tables back into `state`.
        mutating func settle(into state: inout FastState, plan: EnginePlan) {
            let ids = { (c: Int) in plan.correlationRefs[c].metadata.id }
            places.settle(plan.travel, ids: ids, into: &state.places)
            guard state.familiar != nil || plan.travel.contains(where: { familiar.kept[$0] }) else { return }
            var known = state.familiar ?? [:]
            familiar.settle(plan.travel, ids: ids, into: &known)
            state.familiar = known
        }
    }

    /// The index of the first place at or after `time` in places sorted by time; nil when every
    /// place is before it.
    /// - Complexity: O(log n): a walk from the front was a sixth of travel's work, once a busy
    ///   account's places reached back past the cut.
    static func firstPlace(in places: [FastState.Place], notBefore time: Date) -> Int? {
        firstPlace(in: places) { $0 < time }
    }

    /// The index of the first place after `time` in places sorted by time; nil when none is.
    /// - Complexity: O(log n).
    static func firstPlace(in places: [FastState.Place], after time: Date) -> Int? {
        firstPlace(in: places) { $0 <= time }
    }

    /// The index of the first place whose time is not `before` (a test that holds for a
    /// prefix of the places); nil when it holds for all.
    private static func firstPlace(in places: [FastState.Place], before: (Date) -> Bool) -> Int? {
        places.withUnsafeBufferPointer { buffer in
            var low = 0, high = buffer.count
            while low < high {
                let mid = (low + high) / 2
                if before(buffer[mid].time) { low = mid + 1 } else { high = mid }
            }
            return low < buffer.count ? low : nil
        }
    }

    /// `days` with `today` among them, ascending, the last 16 kept: `today` put in its place
    /// (after the rest, nearly always), not the whole list sorted again (a located sign-in on a
    /// new day sorted its place's days, 1.3% of the engine's instructions).
    static func days(_ days: [Int], adding today: Int) -> [Int] {
        guard zip(days, days.dropFirst()).allSatisfy({ $0 < $1 }) else { return Array((days + [today]).sorted().suffix(16)) }
        var days = days
        days.insert(today, at: days.lastIndex { $0 < today }.map { $0 + 1 } ?? 0)
        if days.count > 16 { days.removeFirst(days.count - 16) }
        return days
    }

    /// Comparisons a sign-in makes on each side in time: bounds the cost of a busy account.
    static let maxTravelComparisons = 256

    /// Whether a place was seen on enough days before `day`.
    static func isFamiliar(_ place: FastState.FamiliarPlace?, before day: Int, spec: TravelSpec) -> Bool {
        guard spec.familiarAfterDays > 0, let place else { return false }
        var earlier = 0
        for seen in place.days where seen < day { earlier += 1 }
        return earlier >= spec.familiarAfterDays
    }

    /// Days since 1970-01-01, UTC.
    static func day(_ date: Date) -> Int { Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) }

    /// A place's identity for familiarity: its city and country as Graph names them, else its
    /// coordinates to 0.1° (about 11 km).
    static func placeKey(_ place: FastState.Place) -> String {
        placeKey(location: place.detail.location, latitude: place.latitude, longitude: place.longitude)
    }

    /// `placeKey` of a place with this location and these coordinates.
    static func placeKey(location: String?, latitude: Double, longitude: Double) -> String {
        if let location, !location.isEmpty { return placeKey(label: location) }
        return String(format: "%.1f,%.1f", latitude, longitude)
    }

    /// The key of a place with this (non-empty) label.
    static func placeKey(label: String) -> String { label.lowercased() }

    /// A bound the haversine distance never exceeds: the arc along the meridian plus the arc
    /// along the equator (the parallel's arc is shorter, and the great circle shorter still).
    static func greatCircleUpperBoundKm(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        var dλ = abs(lon2 - lon1)
        if dλ > 180 { dλ = 360 - dλ }
        // Slightly above the radius used below (by 2e-7 of it, far above any rounding), so
        // rounding cannot put the bound under the distance.
        return (abs(lat2 - lat1) + dλ) * boundKmPerDegree
    }

    static let boundKmPerDegree = 6371.01 * Double.pi / 180

    /// Haversine distance on a sphere of the Earth's mean radius.
    static func greatCircleKm(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        distanceKm(haversine: haversine(lat1, lon1, lat2, lon2, cosLatitude2: cos(lat2 * .pi / 180)))
    }

    static let earthRadiusKm = 6371.0088

    /// The haversine of the central angle between the two points (`greatCircleKm`'s `a`), with
    /// the second point's latitude's cosine given: travel compares one sign-in with hundreds of
    /// places, and works that cosine out once.
    @inline(__always) static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double, cosLatitude2: Double) -> Double {
        let φ1 = lat1 * .pi / 180
        let dφ = (lat2 - lat1) * .pi / 180, dλ = (lon2 - lon1) * .pi / 180
        // Each sine once: the calls are not pure to the optimiser (errno), so it repeats them.
        let sφ = sin(dφ / 2), sλ = sin(dλ / 2)
        return sφ * sφ + cos(φ1) * cosLatitude2 * sλ * sλ
    }

    /// The distance of a haversine `a` on the Earth's sphere.
    @inline(__always) static func distanceKm(haversine a: Double) -> Double {
        2 * earthRadiusKm * asin(min(1, sqrt(a)))
    }
}
