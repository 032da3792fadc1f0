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
        // Values shared by the fetcher and the rule engine: a JSON tree with dotted-path lookup.
        .target(name: "TophhieJSON"),
        // The YAML subset that rules and config use, with line:column marks. Pure.
        .target(name: "YAMLReader"),
        // The seed framework on Linux: identity platform, Graph client, public types.
        .target(name: "TophhieAuth", dependencies: ["TophhieJSON"]),
        // A small HTTP/1.1 server on POSIX sockets, for the simulated tenant and test receivers.
        .target(name: "LoopbackHTTP"),
        // The simulated tenant (identity + Graph) served over loopback HTTP.
        .target(name: "TophhieSimulator", dependencies: ["TophhieAuth", "TophhieJSON", "LoopbackHTTP"]),
        // The rule language and the pure engine.
        .target(name: "TophhieRules", dependencies: ["YAMLReader", "TophhieJSON"]),
        // The runtime: config, scheduler, state, outbox, notifiers. The only reader of the real clock.
        .target(name: "TophhieAgent", dependencies: ["TophhieAuth", "TophhieRules", "YAMLReader", "TophhieJSON", "TophhieSimulator", "LoopbackHTTP"]),
        // The command tree.
        .target(name: "TophhieCLI", dependencies: ["TophhieAuth", "TophhieRules", "TophhieAgent", "TophhieSimulator", "YAMLReader", "TophhieJSON"]),
        .executableTarget(name: "tophhie-watch", dependencies: ["TophhieCLI"]),

        .testTarget(name: "TophhieJSONTests", dependencies: ["TophhieJSON"]),
        .testTarget(name: "YAMLReaderTests", dependencies: ["YAMLReader"]),
        .testTarget(name: "TophhieAuthTests", dependencies: ["TophhieAuth", "TophhieSimulator", "LoopbackHTTP", "TophhieJSON"]),
        .testTarget(name: "LoopbackHTTPTests", dependencies: ["LoopbackHTTP"]),
        .testTarget(name: "TophhieSimulatorTests", dependencies: ["TophhieSimulator", "LoopbackHTTP", "TophhieJSON"]),
        .testTarget(name: "TophhieRulesTests", dependencies: ["TophhieRules", "YAMLReader", "TophhieJSON"]),
        .testTarget(name: "TophhieAgentTests", dependencies: ["TophhieAgent", "TophhieAuth", "TophhieRules", "TophhieSimulator", "LoopbackHTTP", "TophhieJSON"]),
        .testTarget(name: "TophhieCLITests", dependencies: ["TophhieCLI", "TophhieAgent", "TophhieSimulator", "LoopbackHTTP", "TophhieJSON"]),
    ]
)

// Strict settings for every target, in one place.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
