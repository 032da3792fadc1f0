import Foundation
import Testing
import TophhieJSON
import TophhieTestSupport
@testable import TophhieRules
@testable import TophhieRulesFast

/// The fast engine's travel shortcuts answer as the plain computation does.
@Suite struct TravelPlacesTests {
    /// The cheap bound that lets travel skip the trigonometry must never be under the distance,
    /// or a real pair would be skipped: a grid over the globe, across the antimeridian and poles.
    @Test func travelDistanceBoundIsNeverUnderTheDistance() {
        var pairs = 0
        for lat1 in stride(from: -90.0, through: 90.0, by: 7.5) {
            for lon1 in stride(from: -180.0, through: 180.0, by: 15.0) {
                for (dLat, dLon) in [(0.0, 0.0), (0.01, 0.01), (1.5, -3.25), (-40, 170), (12, 359.9), (-0.2, -359)] {
                    let lat2 = max(-90, min(90, lat1 + dLat)), lon2 = max(-180, min(180, lon1 + dLon))
                    let distance = EngineRun.greatCircleKm(lat1, lon1, lat2, lon2)
                    let bound = EngineRun.greatCircleUpperBoundKm(lat1, lon1, lat2, lon2)
                    #expect(bound >= distance, "\(lat1),\(lon1) → \(lat2),\(lon2): bound \(bound) < \(distance)")
                    pairs += 1
                }
            }
        }
        #expect(pairs == 25 * 25 * 6)
        // Across the antimeridian the short way round: 179.9 to -179.9 is 0.2°, not 359.8°.
        #expect(EngineRun.greatCircleUpperBoundKm(0, 179.9, 0, -179.9) < 23)
    }

    /// Where travel cuts its places: the first at or after a time (and, when a checkpoint
    /// forgets places, the first after it), found by halving, is the one a walk from the front
    /// finds (times repeated, before all, after all, none).
    @Test func theFirstPlaceNotBeforeATimeIsTheOneAWalkFinds() {
        let start = Date(timeIntervalSince1970: 1_714_557_600)
        let detail = AlertEvent(id: "p", time: start)
        for count in [0, 1, 2, 7, 64] {
            let places = (0..<count).map { n in
                EngineState.Place(id: "p\(n)", time: start.addingTimeInterval(Double(n / 2) * 60), latitude: 0, longitude: 0, label: "", detail: detail)
            }
            for minute in -1...(count / 2 + 1) {
                let time = start.addingTimeInterval(Double(minute) * 60 - (minute % 2 == 0 ? 0 : 30))
                #expect(EngineRun.firstPlace(in: places, notBefore: time) == places.firstIndex { $0.time >= time }, "\(count) places, minute \(minute)")
                #expect(EngineRun.firstPlace(in: places, after: time) == places.firstIndex { $0.time > time }, "\(count) places, after minute \(minute)")
            }
        }
    }
}
