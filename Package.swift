// swift-tools-version: 6.0
import PackageDescription

// No package dependencies: the agent is one self-contained binary built from the toolchain alone.
let package = Package(
    name: "TophhieWatch",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "tophhie-watch", targets: ["tophhie-watch"]),
        .library(name: "TophhieAuth", targets: ["TophhieAuth"]),
        .library(name: "TophhieRules", targets: ["TophhieRules"]),
        .library(name: "YAMLReader", targets: ["YAMLReader"]),
    ],
    targets: [
        // The one platform layer and the only importer of Glibc, split by concern: sockets, durable
        // files, locks, signals, the blocking-work pool, the HTTP client and the clock.
        .target(name: "TophhieSystem"),
        // Values shared by the fetcher and the rule engine: a JSON tree with dotted-path lookup.
        .target(name: "TophhieJSON"),
        // The YAML subset that rules and config use, with line:column marks. Pure.
        .target(name: "YAMLReader"),
        // The seed framework on Linux: identity platform, Graph client, public types.
        .target(name: "TophhieAuth", dependencies: ["TophhieSystem", "TophhieJSON"]),
        // A small HTTP/1.1 server on POSIX sockets, and the embedded transport that calls the same
        // handlers in-process.
        .target(name: "LoopbackHTTP", dependencies: ["TophhieSystem"]),
        // The simulated tenant (identity + Graph): a socket-free handler, served over loopback or embedded.
        .target(name: "TophhieSimulator", dependencies: ["TophhieSystem", "TophhieJSON", "LoopbackHTTP"]),
        // `|re`'s matcher: a Thompson NFA run as a Pike VM, linear in the input, refusing what
        // needs backtracking. The standard library only.
        .target(name: "TophhieRegex"),
        // The rule language and the plain evaluator the agent runs: what each rule means, once.
        .target(name: "TophhieRules", dependencies: ["YAMLReader", "TophhieJSON", "TophhieRegex"]),
        // Replay's fast engine (slots, memo, work-ahead) behind the same evaluator protocol,
        // reaching the rule model through `package` access; held to the plain evaluator by the
        // meaning tests.
        .target(name: "TophhieRulesFast", dependencies: ["TophhieRules", "TophhieJSON"]),
        // Replay: reading a file of sign-ins (a Graph page, an array, JSON lines, a poll timeline) in
        // the engine's order, its index, the reading thread, and the alerts written as they come.
        .target(name: "TophhieReplay", dependencies: ["TophhieSystem", "TophhieJSON", "TophhieRules", "TophhieRulesFast", "TophhieAuth"]),
        // The runtime: config, scheduler, state, outbox, notifiers. It does not link the simulator.
        // The HTML report: a page of one person's sign-ins, with the map it draws on.
        .target(name: "TophhieReport", dependencies: ["TophhieSystem", "TophhieJSON", "TophhieRules", "TophhieAuth"]),
        .target(name: "TophhieAgent", dependencies: ["TophhieSystem", "TophhieAuth", "TophhieRules", "TophhieRulesFast", "YAMLReader", "TophhieJSON"]),
        // The scripted demo: the simulator and the agent on an accelerated clock.
        .target(name: "TophhieDemo", dependencies: ["TophhieAgent", "TophhieAuth", "TophhieRules", "TophhieJSON", "TophhieSimulator", "TophhieSystem", "TophhieReport"]),
        // The command tree.
        .target(name: "TophhieCLI", dependencies: ["TophhieSystem", "TophhieAuth", "TophhieRules", "TophhieRulesFast", "TophhieReplay", "TophhieReport", "TophhieAgent", "TophhieDemo", "TophhieSimulator", "YAMLReader", "TophhieJSON"]),
        .executableTarget(name: "tophhie-watch", dependencies: ["TophhieCLI", "TophhieSystem"]),
        // Times `|re`'s matcher beside NSRegularExpression (benchmarks/regex-benchmark.sh); not shipped.
        .executableTarget(name: "RegexBenchmark", dependencies: ["TophhieRegex"]),
        // Thirty accounts in one daemon against the simulated tenant with Graph's limit, on one
        // clock (benchmarks/accounts.sh); not shipped.
        .executableTarget(name: "AccountsBenchmark", dependencies: ["TophhieAgent", "TophhieAuth", "TophhieSimulator", "LoopbackHTTP", "TophhieSystem"]),
        // What several test targets share: a seeded generator, the repository's folders. Tests only.
        .target(name: "TophhieTestSupport", dependencies: ["TophhieRules", "TophhieJSON"]),

        .testTarget(name: "TophhieSystemTests", dependencies: ["TophhieSystem"]),
        .testTarget(name: "TophhieJSONTests", dependencies: ["TophhieJSON"]),
        // Held to rust-lang/regex's published suite (Data/, cited there) and to ICU on generated cases.
        .testTarget(name: "TophhieRegexTests", dependencies: ["TophhieRegex", "TophhieTestSupport"], exclude: ["Data"]),
        .testTarget(name: "YAMLReaderTests", dependencies: ["YAMLReader", "TophhieSystem"]),
        .testTarget(name: "TophhieAuthTests", dependencies: ["TophhieAuth", "TophhieSystem", "TophhieSimulator", "LoopbackHTTP", "TophhieJSON"]),
        .testTarget(name: "LoopbackHTTPTests", dependencies: ["LoopbackHTTP", "TophhieSystem"]),
        .testTarget(name: "TophhieSimulatorTests", dependencies: ["TophhieSimulator", "TophhieSystem", "LoopbackHTTP", "TophhieJSON"]),
        .testTarget(name: "TophhieRulesTests", dependencies: ["TophhieTestSupport", "TophhieRules", "YAMLReader", "TophhieJSON"]),
        // The fast engine's own parts, the meaning table over both evaluators and every event
        // type, and the seeded differential test.
        .testTarget(name: "TophhieRulesFastTests", dependencies: ["TophhieTestSupport", "TophhieRules", "TophhieRulesFast", "TophhieAgent", "TophhieAuth", "YAMLReader", "TophhieJSON"]),
        .testTarget(name: "TophhieReplayTests", dependencies: ["TophhieTestSupport", "TophhieReplay", "TophhieRules", "TophhieRulesFast", "TophhieCLI", "TophhieSimulator", "TophhieSystem", "TophhieJSON"]),
        .testTarget(name: "TophhieAgentTests", dependencies: ["TophhieReplay", "TophhieAgent", "TophhieSystem", "TophhieAuth", "TophhieRules", "TophhieSimulator", "LoopbackHTTP", "TophhieJSON"]),
        .testTarget(name: "TophhieReportTests", dependencies: ["TophhieTestSupport", "TophhieReport", "TophhieRules", "TophhieJSON"]),
        .testTarget(name: "TophhieCLITests", dependencies: ["TophhieTestSupport", "TophhieCLI", "TophhieReport", "TophhieAgent", "TophhieDemo", "TophhieSystem", "TophhieSimulator", "LoopbackHTTP", "TophhieJSON"]),
    ]
)

// Strict settings for every target, in one place.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
