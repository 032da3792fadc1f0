/// The command list. Each area adds its commands here.
let registeredCommands: [any CLICommand.Type] = [
    RulesCheckCommand.self,
    RulesTestCommand.self,
    ReplayCommand.self,
]
