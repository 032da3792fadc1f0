import Foundation
import TophhieJSON

/// The rules decided one event at a time, in event order: `first_seen` and `impossible_travel`.
extension PlainRun {
    /// An event's group under a first-seen or travel rule's `group-by`: every value present and
    /// not empty, or no group.
    func group(_ rule: CorrelationRule, _ event: any RuleEvent) -> (values: [String], key: String)? {
        var values: [String] = []
        for name in rule.groupBy {
            guard let text = plainText(event, SignInFieldCatalog.resolve(name).path), !text.isEmpty else { return nil }
            values.append(text)
        }
        return (values, plainGroupKey(values))
    }

    /// `first_seen`: a value (or tuple) the group has not shown within `forget`, once learning
    /// is over (both `learning.period` since the group's first event and `learning.events`
    /// events). Under `alert-on`, the named rules' events are checked and teach nothing; the
    /// other referenced rules' events only teach. An event matching only `refresh-only` rules
    /// teaches a value already known (its last sighting, a learning event) and never a new one,
    /// whether or not it may alert.
    mutating func observeFirstSeen(_ c: Int, _ event: any RuleEvent, matched: [Int]) {
        let rule = rules.correlations[c]
        guard case .firstSeen(let spec) = rule.kind, let group = group(rule, event) else { return }
        var parts: [String] = []
        for field in spec.fields {
            guard let text = plainText(event, SignInFieldCatalog.resolve(field).path), !text.isEmpty else { return }
            parts.append(text)
        }
        let shown = parts.map { spec.ignoreVersions ? PlainRun.withoutVersions($0) : $0 }.joined(separator: " / ")
        let value = shown.lowercased()
        let alerting = spec.alertOn.map { names in names.contains { name in matched.contains { rules.detectionIndex[name] == $0 } } } ?? true
        let refreshing = spec.refreshOnly.map { names in
            matched.filter { rules.references(c, anyOf: [$0]) }.allSatisfy { d in names.contains { rules.detectionIndex[$0] == d } }
        } ?? false
        let time = event.eventTime
        let existing = state.baselines[rule.metadata.id]?[group.key]
        var baseline = existing ?? EngineState.Baseline(learningStart: time, events: 0, known: [:])
        let lastSeen = baseline.known[value]
        let isNew = lastSeen.map { time.timeIntervalSince($0) > spec.forgetAfter.interval } ?? true
        let teaches = refreshing ? !isNew : (spec.alertOn == nil || !alerting)
        if teaches && time < baseline.learningStart { baseline.learningStart = time }
        let learned = baseline.events >= spec.learningEvents && time.timeIntervalSince(baseline.learningStart) >= spec.learningPeriod.interval
        // While learning, a rule that says so still tells of a value never seen, once the group
        // has shown one and a day of its history has passed: the first day's places (home, the
        // work VPN, the phone's carrier) are the person's own, not news.
        let learningAlert = !learned && spec.alertWhileLearning && lastSeen == nil && !baseline.known.isEmpty
            && time.timeIntervalSince(baseline.learningStart) >= FirstSeenSpec.learningAlertsAfter
        if teaches {
            baseline.known[value] = max(lastSeen ?? time, time)
            // An update of a sign-in already counted is the same sign-in.
            if !updated.contains(event.eventID) { baseline.events += 1 }
            state.baselines[rule.metadata.id, default: [:]][group.key] = baseline
        } else if existing != nil && lastSeen == nil && baseline.events == 0 {
            state.baselines[rule.metadata.id]?[group.key] = nil
        }
        guard (learned || learningAlert) && isNew && alerting else { return }
        let alertEvent = AlertFactory.alertEvent(event)
        emit(rule.metadata, rule.options, defaultSuppress: 0, group: zip(rule.groupBy, group.values).map { AlertGroupValue(field: $0, value: $1) },
             groupKey: group.key + "\u{1F}" + value, events: [alertEvent], eventCount: 1, windowClose: time,
             summary: "first \(spec.fields.joined(separator: " + ")) '\(shown)'", learning: !learned)
    }

    /// A browser's or system's name without its version words (`Edge 120.0` → `Edge`): a word
    /// that starts with a digit is a version.
    static func withoutVersions(_ text: String) -> String {
        text.split(separator: " ").filter { !($0.first.map { $0.isASCII && $0.isNumber } ?? false) }.joined(separator: " ")
    }

    /// `impossible_travel`: the located sign-in against the group's others within the timespan
    /// on either side (the nearest 256 a side): the nearest in time that is at least
    /// `min-distance` away and faster than `max-speed`, unless both places are familiar (seen on
    /// `familiar-after-days` earlier days). One alert a pair, quiet for the suppression period.
    /// Only a sign-in of a `familiar-from` rule (all, without one) marks its place's day.
    mutating func observeTravel(_ c: Int, _ event: any RuleEvent, matched: [Int]) {
        let rule = rules.correlations[c]
        guard case .impossibleTravel(let spec) = rule.kind,
              let latitude = event.field(at: ["location", "geoCoordinates", "latitude"])?.doubleValue,
              let longitude = event.field(at: ["location", "geoCoordinates", "longitude"])?.doubleValue,
              TravelSpec.isTravelEndpoint(latitude: latitude, longitude: longitude),
              let group = group(rule, event) else { return }
        let ruleID = rule.metadata.id
        let here = AlertFactory.alertEvent(event)
        let label = here.location ?? String(format: "%.2f,%.2f", latitude, longitude)
        // Taken out of the state while it changes: a copy left there would make every sign-in
        // copy the whole list.
        var places = state.places[ruleID]?.removeValue(forKey: group.key) ?? []
        if updated.contains(event.eventID) { places.removeAll { $0.id == event.eventID } }
        var familiar = state.familiar?[ruleID]?[group.key] ?? [:]
        let hereKey = PlainRun.placeKey(here.location, latitude, longitude)
        let span = rule.timespan.interval
        // Where this sign-in goes among the places, in (time, id) order, found by halving.
        var split = 0, high = places.count
        while split < high {
            let middle = (split + high) / 2
            if (places[middle].time, places[middle].id) < (here.time, here.id) { split = middle + 1 } else { high = middle }
        }
        var best: (place: EngineState.Place, distance: Double, speed: Double)?
        // Read in place: most places of a busy day are near, and copying each out retained its texts.
        for index in PlainRun.within(span, of: here.time, around: split, in: places) where places[index].id != here.id {
            let gap = abs(here.time.timeIntervalSince(places[index].time))
            let distance = PlainRun.greatCircleKm(places[index].latitude, places[index].longitude, latitude, longitude)
            let speed = gap == 0 ? Double.infinity : distance / (gap / 3600)
            guard distance >= spec.minDistanceKm, speed > spec.maxSpeedKmh else { continue }
            let place = places[index]
            let day = PlainRun.day(max(here.time, place.time))
            if PlainRun.isFamiliar(familiar[hereKey], before: day, spec) && PlainRun.isFamiliar(familiar[PlainRun.placeKey(place)], before: day, spec) { continue }
            // The nearest in time tells the story; the faster pair breaks a tie.
            if best.map({ (gap, -speed, place.id) < (abs(here.time.timeIntervalSince($0.place.time)), -$0.speed, $0.place.id) }) ?? true {
                best = (place, distance, speed)
            }
        }
        let herePlace = EngineState.Place(id: here.id, time: here.time, latitude: latitude, longitude: longitude, label: label, detail: here)
        if let best {
            let other = best.place
            let day = PlainRun.day(max(here.time, other.time))
            // What the pair is about: its unfamiliar sign-ins. Told once: a later sign-in at home
            // pairing with the same far-away one is the same story.
            let subjects = [herePlace, other].filter { !PlainRun.isFamiliar(familiar[PlainRun.placeKey($0)], before: day, spec) }
            if subjects.isEmpty || !subjects.allSatisfy({ state.findings?[$0.id]?.contains(ruleID) == true }) {
                let pair = [other.detail, here].sorted { ($0.time, $0.id) < ($1.time, $1.id) }
                let (from, to) = pair[0].id == other.id ? (other.label, label) : (label, other.label)
                let speed = best.speed.isFinite ? "\(Int(best.speed.rounded())) km/h" : "at the same instant"
                let summary = "\(Int(best.distance.rounded())) km from \(from) to \(to) in \(AlertFactory.duration(abs(here.time.timeIntervalSince(other.time)))) (\(speed))"
                emit(rule.metadata, rule.options, defaultSuppress: span, group: zip(rule.groupBy, group.values).map { AlertGroupValue(field: $0, value: $1) },
                     groupKey: group.key, events: pair, eventCount: 2, windowClose: pair[1].time, summary: summary, episodeFrom: pair[1].time)
                for subject in subjects where state.findings?[subject.id]?.contains(ruleID) != true {
                    if state.findings == nil { state.findings = [:] }
                    state.findings![subject.id, default: []].append(ruleID)
                }
            }
        }
        let teachesPlace = spec.familiarFrom.map { names in names.contains { name in matched.contains { rules.detectionIndex[name] == $0 } } } ?? true
        if teachesPlace {
            let today = PlainRun.day(here.time)
            var seen = familiar[hereKey] ?? EngineState.FamiliarPlace(days: [], lastSeen: here.time)
            seen.days = Array(Set(seen.days + [today]).sorted().suffix(16))
            seen.lastSeen = max(seen.lastSeen, here.time)
            familiar[hereKey] = seen
        }
        places.insert(herePlace, at: split)
        state.places[ruleID, default: [:]][group.key] = places
        if state.familiar == nil { state.familiar = [:] }
        state.familiar![ruleID, default: [:]][group.key] = familiar
    }

    /// Where the places within `span` of `time` lie, the nearest 256 on either side of `split`
    /// (the places are in time order, so the span's ends are found by halving: walking to them
    /// copied every place of a busy day, twice a sign-in).
    static func within(_ span: TimeInterval, of time: Date, around split: Int, in places: [EngineState.Place]) -> Range<Int> {
        var low = 0, high = split
        while low < high {
            let middle = (low + high) / 2
            if time.timeIntervalSince(places[middle].time) <= span { high = middle } else { low = middle + 1 }
        }
        var after = split, end = places.count
        while after < end {
            let middle = (after + end) / 2
            if places[middle].time.timeIntervalSince(time) <= span { after = middle + 1 } else { end = middle }
        }
        return max(low, split - 256)..<min(after, split + 256)
    }

    /// Whether a place was seen on at least `familiar-after-days` days before `day` (0: never familiar).
    static func isFamiliar(_ place: EngineState.FamiliarPlace?, before day: Int, _ spec: TravelSpec) -> Bool {
        guard spec.familiarAfterDays > 0, let place else { return false }
        return place.days.filter { $0 < day }.count >= spec.familiarAfterDays
    }

    /// Days since 1970-01-01, UTC.
    static func day(_ date: Date) -> Int { Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) }

    /// A place's identity for familiarity: its "City, Country" folded, else its coordinates to 0.1°.
    static func placeKey(_ location: String?, _ latitude: Double, _ longitude: Double) -> String {
        if let location, !location.isEmpty { return location.lowercased() }
        return String(format: "%.1f,%.1f", latitude, longitude)
    }

    static func placeKey(_ place: EngineState.Place) -> String { placeKey(place.detail.location, place.latitude, place.longitude) }

    /// The haversine distance on a sphere of the Earth's mean radius (6371.0088 km).
    static func greatCircleKm(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let φ1 = lat1 * .pi / 180, φ2 = lat2 * .pi / 180
        let sφ = sin((lat2 - lat1) * .pi / 180 / 2), sλ = sin((lon2 - lon1) * .pi / 180 / 2)
        let a = sφ * sφ + cos(φ1) * cos(φ2) * sλ * sλ
        return 2 * 6371.0088 * asin(min(1, sqrt(a)))
    }
}
