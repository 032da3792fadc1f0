/// Completion scripts for bash, zsh and fish, built from the command specs: the commands, their
/// sub-commands, each command's options, and the values each option and positional takes.
enum ShellCompletion {
    static let shells = ["bash", "zsh", "fish"]

    /// What may follow each command path ("" is the top level): the next words, or the options
    /// (and a positional's values), and what the positionals are.
    struct Row {
        var path: String
        var words: [String]
        var positionals: ValueKind = .none
    }

    /// An option that takes a value, under the command it belongs to; nil `path` for one that
    /// takes the same kind of value under every command that has it (`--config`, `--rules`).
    struct ValuedOption {
        var path: String?
        var option: OptionSpec

        /// The `case` pattern for "this option just before the cursor" in bash and zsh.
        var pattern: String { (path.map { "\"\($0)" } ?? "*\"") + "|--\(option.name)\"" }
    }

    static func table(_ commands: [any CLICommand.Type]) -> [Row] {
        var rows: [Row] = []
        func add(_ path: String, _ word: String) {
            if let index = rows.firstIndex(where: { $0.path == path }) {
                if !rows[index].words.contains(word) { rows[index].words.append(word) }
            } else {
                rows.append(Row(path: path, words: [word]))
            }
        }
        for word in ["help", "--version", "--help"] { add("", word) }
        for command in commands {
            let spec = command.spec
            let path = spec.path.joined(separator: " ")
            for depth in 0..<spec.path.count { add(spec.path[..<depth].joined(separator: " "), spec.path[depth]) }
            for option in spec.options { add(path, "--\(option.name)") }
            add(path, "--help")
            for value in spec.positionalKind.choices { add(path, value) }
            if let index = rows.firstIndex(where: { $0.path == path }) { rows[index].positionals = spec.positionalKind }
        }
        return rows
    }

    static func valuedOptions(_ commands: [any CLICommand.Type]) -> [ValuedOption] {
        let all = commands.flatMap { command in
            command.spec.options.filter { $0.kind != .none }.map { ValuedOption(path: command.spec.path.joined(separator: " "), option: $0) }
        }
        var result: [ValuedOption] = []
        for entry in all {
            let namesakes = all.filter { $0.option.name == entry.option.name }
            if namesakes.allSatisfy({ $0.option.kind == entry.option.kind }) {
                if !result.contains(where: { $0.path == nil && $0.option.name == entry.option.name }) { result.append(ValuedOption(path: nil, option: entry.option)) }
            } else {
                result.append(entry)
            }
        }
        return result
    }

    /// `patterns` grouped by what each does, in the order each action first appears.
    static func grouped(_ entries: [(pattern: String, action: String)]) -> [(patterns: [String], action: String)] {
        var groups: [(patterns: [String], action: String)] = []
        for entry in entries {
            if let index = groups.firstIndex(where: { $0.action == entry.action }) {
                groups[index].patterns.append(entry.pattern)
            } else {
                groups.append(([entry.pattern], entry.action))
            }
        }
        return groups
    }

    /// How a shell's `case` arm completes an option's value: from words, a file, a folder, or
    /// nothing it could guess.
    struct CaseWords {
        var words: ([String]) -> String
        var file: String
        var directory: String
        var nothing: String

        func action(for kind: ValueKind) -> String {
            switch kind {
            case .enumeration(let words, _): self.words(words)
            case .file, .path: file
            case .directory: directory
            default: nothing
            }
        }
    }

    /// The `case` arms for "the word after this option", one per action, written by `arm`.
    static func valueArms(_ valued: [ValuedOption], _ words: CaseWords, arm: ([String], String) -> String) -> String {
        grouped(valued.map { ($0.pattern, words.action(for: $0.option.kind)) }).map { arm($0.patterns, $0.action) }.joined(separator: "\n")
    }

    static func script(for shell: String, _ commands: [any CLICommand.Type]) -> String? {
        let rows = table(commands)
        let valued = valuedOptions(commands)
        switch shell {
        case "bash":
            let bash = CaseWords(words: { "COMPREPLY=($(compgen -W \"\($0.joined(separator: " "))\" -- \"$cur\"))" },
                                 file: "COMPREPLY=($(compgen -f -- \"$cur\"))", directory: "COMPREPLY=($(compgen -d -- \"$cur\"))",
                                 // A value nothing can guess (a number, an id): offer no options in its place.
                                 nothing: "COMPREPLY=()")
            let values = valueArms(valued, bash) { "        \($0.joined(separator: "|"))) \($1); return ;;" }
            let cases = rows.map { row -> String in
                let files = switch row.positionals {
                case .file, .path: " files=-f"
                case .directory: " files=-d"
                default: ""
                }
                return "        \"\(row.path)\") words=\"\(row.words.joined(separator: " "))\"\(files) ;;"
            }.joined(separator: "\n")
            return """
            # bash completion for tophhie-watch (generated by 'tophhie-watch completion bash')
            _tophhie_watch() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmdpath="" words="" files="" i
                for ((i = 1; i < COMP_CWORD; i++)); do
                    case "${COMP_WORDS[i]}" in -*) break ;; esac
                    cmdpath="${cmdpath:+$cmdpath }${COMP_WORDS[i]}"
                done
                # The word after an option that takes a value is that value.
                case "$cmdpath|$prev" in
            \(values)
                esac
                case "$cmdpath" in
            \(cases)
                esac
                if [[ -n $files && $cur != -* ]]; then
                    COMPREPLY=($(compgen $files -- "$cur"))
                else
                    COMPREPLY=($(compgen -W "$words" -- "$cur"))
                fi
            }
            complete -o default -F _tophhie_watch tophhie-watch

            """
        case "zsh":
            let zsh = CaseWords(words: { "compadd -- \($0.joined(separator: " "))" }, file: "_files", directory: "_files -/", nothing: ":")
            let values = valueArms(valued, zsh) { "        (\($0.joined(separator: "|")))) \($1); return ;;" }
            let cases = rows.map { row -> String in
                let files = switch row.positionals {
                case .file, .path: "; [[ ${words[CURRENT]} != -* ]] && { _files; return }"
                case .directory: "; [[ ${words[CURRENT]} != -* ]] && { _files -/; return }"
                default: ""
                }
                return "        (\"\(row.path)\") choices=(\(row.words.joined(separator: " ")))\(files) ;;"
            }.joined(separator: "\n")
            return """
            #compdef tophhie-watch
            # zsh completion for tophhie-watch (generated by 'tophhie-watch completion zsh')
            _tophhie_watch() {
                local cmdpath="" i
                local -a choices
                for ((i = 2; i < CURRENT; i++)); do
                    [[ ${words[i]} == -* ]] && break
                    cmdpath="${cmdpath:+$cmdpath }${words[i]}"
                done
                # The word after an option that takes a value is that value.
                case "$cmdpath|${words[CURRENT-1]}" in
            \(values)
                esac
                case "$cmdpath" in
            \(cases)
                esac
                compadd -- $choices
            }
            _tophhie_watch "$@"

            """
        case "fish":
            var lines = ["# fish completion for tophhie-watch (generated by 'tophhie-watch completion fish')", "complete -c tophhie-watch -f"]
            func condition(_ path: String) -> String {
                let words = path.split(separator: " ").map(String.init)
                return words.isEmpty
                    ? "__fish_use_subcommand"
                    : words.map { "__fish_seen_subcommand_from \($0)" }.joined(separator: "; and ")
            }
            for row in rows {
                let plain = row.words.filter { !$0.hasPrefix("-") }
                if !plain.isEmpty { lines.append("complete -c tophhie-watch -n '\(condition(row.path))' -a '\(plain.joined(separator: " "))'") }
                switch row.positionals {
                case .file, .path: lines.append("complete -c tophhie-watch -n '\(condition(row.path))' -F")
                case .directory: lines.append("complete -c tophhie-watch -n '\(condition(row.path))' -a '(__fish_complete_directories)'")
                default: break
                }
                for option in row.words.filter({ $0.hasPrefix("--") }).map({ String($0.dropFirst(2)) }) {
                    let kind = valued.first { ($0.path == nil || $0.path == row.path) && $0.option.name == option }?.option.kind ?? .none
                    let takes = switch kind {
                    case .none: ""
                    case .enumeration(let words, _): " -x -a '\(words.joined(separator: " "))'"
                    case .file, .path: " -r -F"
                    case .directory: " -x -a '(__fish_complete_directories)'"
                    default: " -x"
                    }
                    lines.append("complete -c tophhie-watch -n '\(condition(row.path))' -l \(option)\(takes)")
                }
            }
            return lines.joined(separator: "\n") + "\n"
        default:
            return nil
        }
    }
}
