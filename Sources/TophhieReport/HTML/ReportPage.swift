import Foundation
import TophhieJSON
import TophhieRules
import TophhieSystem

/// The report as one HTML page that needs nothing else: styles and the map inline, no script,
/// and a Content-Security-Policy that lets the page load nothing at all.
public enum ReportPage {
    /// The policy: no script, no fetch, no image, no frame; only the page's own inline styles.
    static let policy = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Rows a table shows before saying how many more there are.
    static let tableRows = 200

    /// The page for `digest`: the answer first (the verdict, whose sign-ins, the period, the
    /// alerts with what to do), then the map, the timeline, the grid and the tables.
    /// - Parameters:
    ///   - context: whose sign-ins, when written, the zone times are shown in, what the agent knows.
    ///   - version: the program's version (in the footer).
    /// - Complexity: O(places + days + alerts + table rows).
    public static func html(_ digest: SignInDigest, context: ReportContext, version: String) -> String {
        let time = context.time
        var page = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="\(policy)">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>Your sign-ins, \(time.day(digest.from)) to \(time.day(digest.to))</title>
        <style>\(style)</style>
        </head>
        <body>

        """
        page += answer(digest, context: context)
        page += alerts(digest, time: time)
        page += summary(digest, time: time)
        page += map(digest)
        page += timeline(digest, time: time)
        page += tables(digest, time: time)
        page += """
        <footer><p>Written by tophhie-watch \(HTMLText.escape(version)) at \(time.text(context.generatedAt)); times are \(time.isUTC ? "UTC" : "in \(HTMLText.escape(time.name)) with UTC beside them"). \
        Map: Natural Earth 1:110m countries (public domain). Every name on this page comes from your sign-in log \
        and is shown as text.</p></footer>
        </body>
        </html>

        """
        return page
    }

    /// The page with only the time it was written known (UTC, no account).
    public static func html(_ digest: SignInDigest, generatedAt: Date, version: String) -> String {
        html(digest, context: ReportContext(generatedAt: generatedAt), version: version)
    }

    /// Writes the page for `digest` to `path` (0600: it holds a sign-in history), replacing
    /// what was there atomically; blocks on the disk, so call it from the blocking pool.
    /// - Returns: its size in bytes.
    /// - Throws: `FileError` when it cannot be written.
    public static func write(_ digest: SignInDigest, to path: String, context: ReportContext) throws -> Int {
        let bytes = Array(html(digest, context: context, version: ProductVersion.number).utf8)
        try DurableFile.replace(path, with: bytes, mode: 0o600)
        return bytes.count
    }

    /// The answer in one line: "2 high alerts in the last 30 days", "1 high and 3 medium alerts
    /// between … and …", or "nothing found between … and …".
    public static func verdict(_ digest: SignInDigest, context: ReportContext) -> String {
        let time = context.time
        let between = "between \(time.text(digest.from)) and \(time.text(digest.to))"
        guard !digest.alerts.isEmpty else { return "nothing found \(between)" }
        var parts: [String] = []
        for level in AlertLevel.allCases.reversed() {
            let n = digest.alerts.count { $0.level == level }
            if n > 0 { parts.append("\(n) \(level.rawValue)") }
        }
        let levels = parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: ", ") + " and " + parts.last!
        let when = context.endsNow ? "in the last \(span(digest.to.timeIntervalSince(digest.from)))" : between
        return "\(levels) \(digest.alerts.count == 1 ? "alert" : "alerts") \(when)"
    }

    /// `30 days`, `1 day`, `12 hours`, `5 minutes`: the largest unit that divides the span
    /// (a period asked for with --since), else days, hours or minutes rounded.
    static func span(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds.rounded())
        for (size, one, many) in [(86_400, "day", "days"), (3600, "hour", "hours"), (60, "minute", "minutes")] where whole >= size && (whole % size == 0 || size == 60) {
            return count(whole / size, one, many)
        }
        return count(max(1, whole), "second", "seconds")
    }

    static func answer(_ digest: SignInDigest, context: ReportContext) -> String {
        let time = context.time
        var lines = "<p class=\"verdict \(digest.alerts.isEmpty ? "quiet" : "found")\" id=\"verdict\">\(HTMLText.escape(verdict(digest, context: context), limit: 400))</p>\n"
        let account = context.account ?? digest.account.flatMap { ReportContext(accountName: $0.name, userPrincipalName: $0.userPrincipalName, generatedAt: context.generatedAt).account }
        lines += "<p class=\"account\" id=\"account\">Account: \(account.map { HTMLText.escape($0, limit: 300) } ?? "not named by these sign-ins")</p>\n"
        lines += "<p class=\"period\" id=\"period\">Period: \(time.text(digest.from)) to \(time.text(digest.to)). Written \(time.text(context.generatedAt)).</p>\n"
        if let learning = context.placeLearning {
            lines += "<p class=\"learning\" id=\"learning\">The agent\u{2019}s \(HTMLText.escape(learning, limit: 300)): until then a new device stays quiet, and a country you have never signed in from is told one level lower.</p>\n"
        }
        return "<header>\n<h1>Your sign-ins</h1>\n\(lines)</header>\n\n"
    }

    static func day(_ date: Date) -> String { String(GraphTimestamp.filterText(date).prefix(10)) }

    static func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }

    static func summary(_ digest: SignInDigest, time: ReportTime) -> String {
        let failed = digest.outcomes[.failure] ?? 0, interrupted = digest.outcomes[.interrupted] ?? 0
        return """
        <section id="counts">
        <h2>In numbers</h2>
        <p class="summary" id="summary">\(count(digest.signIns, "sign-in", "sign-ins")) (\(failed) failed, \(interrupted) interrupted for more proof), \
        \(count(digest.countries.count, "country", "countries")), \(count(digest.devices.count, "device", "devices")), \
        \(count(digest.alerts.count, "alert", "alerts")), from \(time.day(digest.from)) to \(time.day(digest.to)).</p>
        </section>

        """
    }

    static func outcomeCounts(_ counts: [SignInOutcome: Int]) -> String {
        "\(counts[.success] ?? 0) succeeded, \(counts[.failure] ?? 0) failed, \(counts[.interrupted] ?? 0) interrupted"
    }

    static func map(_ digest: SignInDigest) -> String {
        let largest = Double(digest.places.map(\.total).max() ?? 1)
        var svg = "<svg class=\"map\" viewBox=\"0 0 1000 500\" role=\"img\" aria-labelledby=\"map-title\"><title id=\"map-title\">Where your sign-ins came from</title>"
        svg += "<path class=\"land\" d=\"\(WorldMap.outline)\"/>"
        svg += "<g class=\"trips\">"
        for trip in digest.trips {
            let a = WorldMap.point(latitude: trip.from.latitude, longitude: trip.from.longitude)
            let b = WorldMap.point(latitude: trip.to.latitude, longitude: trip.to.longitude)
            svg += "<line class=\"trip\" data-alert=\"\(HTMLText.escape(trip.alertID))\" x1=\"\(WorldMap.number(a.x))\" y1=\"\(WorldMap.number(a.y))\" x2=\"\(WorldMap.number(b.x))\" y2=\"\(WorldMap.number(b.y))\"><title>Impossible travel (alert \(HTMLText.escape(trip.alertID)))</title></line>"
        }
        svg += "</g><g class=\"places\">"
        // Largest first, so smaller circles are drawn over them and stay visible.
        for place in digest.places {
            let at = WorldMap.point(latitude: place.latitude, longitude: place.longitude)
            let radius = 2.5 + 14 * (Double(place.total) / largest).squareRoot()
            svg += "<circle class=\"place \(place.mostly.rawValue)\(place.isNew ? " new" : "")\" cx=\"\(WorldMap.number(at.x))\" cy=\"\(WorldMap.number(at.y))\" r=\"\(WorldMap.number(radius))\"><title>\(HTMLText.escape(place.name.isEmpty ? "unnamed place" : place.name)): \(outcomeCounts(place.counts))\(place.isNew ? ", new" : "")</title></circle>"
        }
        svg += "</g></svg>"
        var rows = ""
        for place in digest.places.prefix(tableRows) {
            rows += "<tr><td>\(HTMLText.escape(place.name.isEmpty ? "unnamed place" : place.name))\(place.isNew ? " <span class=\"new-mark\">new</span>" : "")</td><td class=\"n\">\(place.total)</td><td class=\"n\">\(place.counts[.success] ?? 0)</td><td class=\"n\">\(place.counts[.failure] ?? 0)</td><td class=\"n\">\(place.counts[.interrupted] ?? 0)</td></tr>"
        }
        let more = digest.places.count > tableRows ? "<p>And \(digest.places.count - tableRows) more places.</p>" : ""
        return """
        <section id="where">
        <h2>Where</h2>
        <div class="beside">
        <figure>\(svg)
        <figcaption><span class="key success">mostly succeeded</span> <span class="key failure">mostly failed</span> \
        <span class="key interrupted">mostly interrupted</span> <span class="key new">ringed: new</span> \
        <span class="key trip">line: impossible travel</span>. Circle area follows the number of sign-ins. \
        \(digest.unplaced > 0 ? "\(count(digest.unplaced, "sign-in", "sign-ins")) had no place and are not on the map." : "")</figcaption>
        </figure>
        <table class="places-table"><caption>Places</caption>
        <thead><tr><th>place</th><th>sign-ins</th><th>succeeded</th><th>failed</th><th>interrupted</th></tr></thead>
        <tbody>\(rows)</tbody></table>
        </div>
        \(more)
        </section>

        """
    }

    static func timeline(_ digest: SignInDigest, time: ReportTime) -> String {
        let width = 12.0, gap = 2.0, half = 90.0
        // Each stream to its own scale: an app's hourly refreshes would flatten the sign-ins a
        // person makes.
        let tallestUp = Double(max(1, digest.days.map { $0.interactive.values.reduce(0, +) }.max() ?? 1))
        let tallestDown = Double(max(1, digest.days.map { $0.nonInteractive.values.reduce(0, +) }.max() ?? 1))
        let total = Double(digest.days.count) * (width + gap)
        var svg = "<svg class=\"timeline\" viewBox=\"0 0 \(WorldMap.number(total + 40)) \(WorldMap.number(2 * half + 40))\" preserveAspectRatio=\"none\" role=\"img\" aria-labelledby=\"timeline-title\"><title id=\"timeline-title\">Sign-ins per day: interactive above the line, non-interactive below; alerts marked</title>"
        // Bands behind the bars: days Graph no longer keeps, and sign-ins it published late.
        let dayWidth = width + gap
        let firstDay = digest.days.first?.start ?? digest.from
        for band in digest.bands {
            let x0 = 20 + band.from.timeIntervalSince(firstDay) / 86_400 * dayWidth
            let x1 = max(x0 + 3, 20 + band.to.timeIntervalSince(firstDay) / 86_400 * dayWidth)
            let label: String
            switch band.kind {
            case .retention: label = "Before \(time.text(band.to)): beyond the tenant's retention, Graph no longer has these sign-ins"
            case .late: label = "\(time.text(band.from)) to \(time.text(band.to)): sign-ins Graph published late"
            case .gap: label = "\(time.text(band.from)) to \(time.text(band.to)): a coverage gap, sign-ins the agent could no longer read and did not check"
            case .learning: label = "\(time.text(band.from)) to \(time.text(band.to)): the place rules still learning your places"
            }
            svg += "<rect class=\"band \(band.kind.rawValue)\" x=\"\(WorldMap.number(x0))\" y=\"0\" width=\"\(WorldMap.number(x1 - x0))\" height=\"\(WorldMap.number(2 * half + 40))\"><title>\(label)</title></rect>"
        }
        svg += "<line class=\"axis\" x1=\"0\" y1=\"\(WorldMap.number(half + 20))\" x2=\"\(WorldMap.number(total + 40))\" y2=\"\(WorldMap.number(half + 20))\"/>"
        for (index, day) in digest.days.enumerated() {
            let x = 20 + Double(index) * (width + gap)
            var up = half + 20, down = half + 20
            for outcome in [SignInOutcome.success, .interrupted, .failure] {
                let a = Double(day.interactive[outcome] ?? 0) / tallestUp * half
                if a > 0 {
                    up -= a
                    svg += "<rect class=\"bar \(outcome.rawValue)\" x=\"\(WorldMap.number(x))\" y=\"\(WorldMap.number(up))\" width=\"\(WorldMap.number(width))\" height=\"\(WorldMap.number(a))\"><title>\(Self.day(day.start)) interactive: \(day.interactive[outcome] ?? 0) \(outcome.rawValue)</title></rect>"
                }
                let b = Double(day.nonInteractive[outcome] ?? 0) / tallestDown * half
                if b > 0 {
                    svg += "<rect class=\"bar \(outcome.rawValue) non-interactive\" x=\"\(WorldMap.number(x))\" y=\"\(WorldMap.number(down))\" width=\"\(WorldMap.number(width))\" height=\"\(WorldMap.number(b))\"><title>\(Self.day(day.start)) non-interactive: \(day.nonInteractive[outcome] ?? 0) \(outcome.rawValue)</title></rect>"
                    down += b
                }
            }
            if day.alerts > 0 {
                svg += "<path class=\"alert-mark\" d=\"M\(WorldMap.number(x + width / 2)) 14l-5 -9h10z\"><title>\(Self.day(day.start)): \(count(day.alerts, "alert", "alerts"))</title></path>"
            }
        }
        svg += "</svg>"
        var grid = "<table class=\"hours\"><caption>Sign-ins by weekday and hour (\(HTMLText.escape(time.name)))</caption><thead><tr><th></th>"
        for hour in 0..<24 { grid += "<th>\(hour)</th>" }
        grid += "</tr></thead><tbody>"
        let busiest = Double(max(1, digest.hours.flatMap { $0 }.max() ?? 1))
        for (index, name) in ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].enumerated() {
            grid += "<tr><th>\(name)</th>"
            for hour in 0..<24 {
                let n = digest.hours[index][hour]
                let level = n == 0 ? 0 : 1 + Int(Double(n) / busiest * 4.999)
                grid += "<td class=\"h\(level)\">\(n)</td>"
            }
            grid += "</tr>"
        }
        grid += "</tbody></table>"
        return """
        <section id="when">
        <h2>When</h2>
        <figure>\(svg)<figcaption>Each day (UTC) from \(day(digest.from)) to \(day(digest.to)): interactive sign-ins above the line \
        (at most \(Int(tallestUp)) a day), non-interactive ones (token refreshes, apps acting for you) below (at most \(Int(tallestDown)) a day), \
        each to its own scale; ▼ a day with alerts; <span class="key band-late">shaded</span>: sign-ins Graph published late; \
        <span class="key band-retention">grey</span>: beyond the tenant's retention\(digest.bands.contains { $0.kind == .gap } ? "; <span class=\"key band-gap\">hatched red</span>: a coverage gap the agent told of" : "")\
        \(digest.bands.contains { $0.kind == .learning } ? "; <span class=\"key band-learning\">green</span>: the place rules still learning" : "").</figcaption></figure>
        \(grid)
        </section>

        """
    }

    static func alerts(_ digest: SignInDigest, time: ReportTime) -> String {
        var html = "<section id=\"alerts\">\n<h2>Alerts, newest first</h2>\n"
        if digest.alerts.isEmpty { html += "<p>No alert in this period.</p>\n" }
        for alert in digest.alerts {
            html += "<article class=\"alert \(alert.level.rawValue)\" id=\"alert-\(HTMLText.escape(alert.id))\">"
            html += "<h3><span class=\"level\">\(alert.level.rawValue.uppercased())</span> \(HTMLText.escape(alert.rule.title, limit: 200))</h3>"
            html += "<p>\(HTMLText.escape(alert.sentence, limit: 400))</p>"
            if let steps = AlertResponse.steps(for: alert) {
                // The page names no URL (nothing in it may lead anywhere): the address as words.
                html += "<p class=\"steps-title\">What to do now:</p><ol class=\"steps\">"
                for step in steps { html += "<li>\(HTMLText.escape(step.replacingOccurrences(of: "https://", with: ""), limit: 300))</li>" }
                html += "</ol>"
            }
            html += "<p class=\"meta\">Rule <code>\(HTMLText.escape(alert.rule.id))</code>\(alert.rule.author.map { " by \(HTMLText.escape($0))" } ?? ""); detected \(time.text(alert.detectedAt)); \(count(alert.eventCount, "sign-in", "sign-ins"))\(alert.late ? "; late" : "")\(alert.learning == true ? "; while the place rules learn" : "")</p>"
            if !alert.events.isEmpty {
                html += "<div class=\"wide\"><table class=\"evidence\"><thead><tr><th>time</th><th>code</th><th>app</th><th>address</th><th>place</th><th>device</th></tr></thead><tbody>"
                for event in alert.events {
                    html += "<tr><td>\(time.text(event.time))</td><td class=\"n\">\(event.errorCode.map(String.init) ?? "")</td><td>\(HTMLText.escape(event.app ?? ""))</td><td class=\"address\">\(HTMLText.escape(event.ipAddress ?? ""))</td><td>\(HTMLText.escape(event.location ?? ""))</td><td>\(HTMLText.escape(event.device ?? ""))</td></tr>"
                }
                html += "</tbody></table></div>"
            }
            html += "</article>\n"
        }
        return html + "</section>\n"
    }

    static func tables(_ digest: SignInDigest, time: ReportTime) -> String {
        var html = "<section id=\"seen\">\n<h2>What was seen</h2>\n<div class=\"tables\">"
        for (title, one, rows) in [("Countries", "country", digest.countries), ("Devices", "device", digest.devices), ("Apps", "app", digest.apps), ("Addresses", "address", digest.addresses)] {
            let cell = one == "address" ? "<td class=\"address\">" : "<td>"
            html += "<table class=\"seen\" id=\"seen-\(title.lowercased())\"><caption>\(title)</caption><thead><tr><th>\(one)</th><th>sign-ins</th><th>first seen</th><th>last seen</th></tr></thead><tbody>"
            for row in rows.prefix(tableRows) {
                html += "<tr\(row.isNew ? " class=\"new\"" : "")>\(cell)\(HTMLText.escape(row.value))\(row.isNew ? " <span class=\"new-mark\">new</span>" : "")</td><td class=\"n\">\(row.count)</td><td>\(time.text(row.first))</td><td>\(time.text(row.last))</td></tr>"
            }
            html += "</tbody></table>"
            if rows.count > tableRows { html += "<p>And \(rows.count - tableRows) more.</p>" }
        }
        return html + "</div>\n</section>\n"
    }

    /// Okabe and Ito's palette, told apart with the common colour-vision deficiencies, with a
    /// dark scheme and a print layout.
    static let style = """
    :root{--bg:#fff;--fg:#1b1b1b;--muted:#5a5a5a;--land:#e4e4e4;--line:#bbb;--success:#0072B2;--failure:#D55E00;--interrupted:#E69F00;--new:#1b1b1b;--trip:#CC79A7}
    @media (prefers-color-scheme:dark){:root{--bg:#141414;--fg:#eee;--muted:#aaa;--land:#333;--line:#555;--success:#56B4E9;--failure:#E69F00;--interrupted:#F0E442;--new:#eee;--trip:#CC79A7}}
    body{margin:0 auto;max-width:1200px;padding:1rem;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,sans-serif}
    h1{margin:.2rem 0}h2{border-bottom:1px solid var(--line);padding-bottom:.2rem;margin-top:2rem}
    .summary{font-size:1.1rem}.beside{display:flex;gap:1rem;flex-wrap:wrap;align-items:flex-start}
    figure{margin:0;flex:3 1 600px}svg{width:100%;height:auto}svg.timeline{height:220px}
    .land{fill:var(--land);stroke:var(--bg);stroke-width:.5}
    .place{fill-opacity:.75;stroke:var(--bg);stroke-width:.6}.place.new{stroke:var(--new);stroke-width:1.6}
    .success{fill:var(--success)}.failure{fill:var(--failure)}.interrupted{fill:var(--interrupted)}
    .bar.non-interactive{fill-opacity:.6}.trip{stroke:var(--trip);stroke-width:1.5;stroke-dasharray:4 2}
    .axis{stroke:var(--muted);stroke-width:1}.alert-mark{fill:var(--fg)}
    .band.retention{fill:var(--muted);fill-opacity:.18}.band.late{fill:var(--trip);fill-opacity:.22}
    .band.gap{fill:var(--failure);fill-opacity:.25}.band.learning{fill:var(--success);fill-opacity:.12}
    .key.band-gap::before{background:var(--failure);opacity:.5;border-radius:0}.key.band-learning::before{background:var(--success);opacity:.3;border-radius:0}
    .verdict{font-size:1.5rem;font-weight:600;margin:.3rem 0}.verdict.found{color:var(--failure)}.account,.period,.learning{margin:.2rem 0}
    .steps{margin:.2rem 0 .5rem}.steps-title{margin:.4rem 0 0;font-weight:600}
    .key.band-late::before{background:var(--trip);opacity:.4;border-radius:0}.key.band-retention::before{background:var(--muted);opacity:.4;border-radius:0}
    figcaption{color:var(--muted);font-size:.9rem}.key::before{content:"";display:inline-block;width:.8em;height:.8em;margin-right:.25em;border-radius:50%;vertical-align:-.05em}
    .key.success::before{background:var(--success)}.key.failure::before{background:var(--failure)}.key.interrupted::before{background:var(--interrupted)}
    .key.new::before{border:2px solid var(--new)}.key.trip::before{background:var(--trip);border-radius:0;height:.2em}
    table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}caption{text-align:left;font-weight:600}
    th,td{border-bottom:1px solid var(--line);padding:.15rem .45rem;text-align:left;vertical-align:top;overflow-wrap:break-word;hyphens:none}
    th{white-space:nowrap}td.address{white-space:nowrap}.wide{overflow-x:auto;max-width:100%}
    td.n{text-align:right;font-variant-numeric:tabular-nums}.places-table{flex:1 1 280px}
    .hours td{text-align:center;min-width:1.4em;font-size:.75rem}.hours .h0{color:var(--muted)}
    .hours .h1{background:color-mix(in srgb,var(--success) 15%,transparent)}.hours .h2{background:color-mix(in srgb,var(--success) 35%,transparent)}
    .hours .h3{background:color-mix(in srgb,var(--success) 55%,transparent)}.hours .h4,.hours .h5{background:color-mix(in srgb,var(--success) 80%,transparent);color:#fff}
    .tables{display:flex;flex-wrap:wrap;gap:1.5rem}.new-mark{font-size:.75rem;border:1px solid var(--fg);border-radius:.6em;padding:0 .35em}
    .alert{border-left:4px solid var(--line);padding:.2rem .8rem;margin:1rem 0}.alert.high,.alert.critical{border-color:var(--failure)}
    .alert.medium{border-color:var(--interrupted)}.level{font-size:.8rem;letter-spacing:.05em}.meta{color:var(--muted);font-size:.85rem}
    footer{margin-top:2rem;color:var(--muted);font-size:.8rem}
    @media print{body{max-width:none;font-size:10pt}.alert,table,figure{break-inside:avoid}a{color:inherit}}
    """
}
