import Foundation

/// The world as the report draws it: Natural Earth's country outlines (`WorldOutline.swift`) in
/// an equirectangular 1000 x 500 frame, places as circles on it, travel as lines.
enum WorldMap {
    static let width = 1000.0
    static let height = 500.0

    /// Where a latitude and longitude fall in the frame.
    static func point(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        ((longitude + 180) / 360 * width, (90 - latitude) / 180 * height)
    }

    /// A number as SVG takes it, to a tenth.
    static func number(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }
}
