/// A set of options declared as properties, each an `Option` (or a nested group, or a list of
/// options made from a table), in the order help lists them. A command's `Options` is one.
///
/// The properties are the one declaration: the command's spec, so its help, completion and
/// manual page, and its parsing are all made from them.
protocol OptionGroup: Sendable {
    init()
}

extension OptionGroup {
    /// Every option the properties declare, nested groups included, in declaration order.
    static var declarations: [OptionSpec] { Self().declarations }

    var declarations: [OptionSpec] {
        // Reflection reads the declarations from the properties themselves, so no second list
        // of them can fall out of step with the properties.
        Mirror(reflecting: self).children.flatMap { child -> [OptionSpec] in
            switch child.value {
            case let option as any OptionDeclaring: [option.spec]
            case let group as any OptionGroup: group.declarations
            case let options as [any OptionDeclaring]: options.map(\.spec)
            default: []
            }
        }
    }
}

/// The options of a command that takes none.
struct NoOptions: OptionGroup {}
