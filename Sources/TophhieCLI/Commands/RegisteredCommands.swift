/// The command list, in the order `--help` shows it.
let registeredCommands: [any CLICommand.Type] = [
    DemoCommand.self,
    LoginCommand.self,
    LogoutCommand.self,
    StatusCommand.self,
    DoctorCommand.self,
    ProfileShowCommand.self,
    ProfileSetCommand.self,
    HistoryCommand.self,
    PollCommand.self,
    RunCommand.self,
    RulesCheckCommand.self,
    RulesTestCommand.self,
    ReplayCommand.self,
    NotifyTestCommand.self,
    SimulateCommand.self,
]
