/// The command list. Each area adds its commands here.
let registeredCommands: [any CLICommand.Type] = [
    LoginCommand.self,
    LogoutCommand.self,
    StatusCommand.self,
    DoctorCommand.self,
    ProfileShowCommand.self,
    ProfileSetCommand.self,
    HistoryCommand.self,
]
