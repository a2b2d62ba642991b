package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/alecthomas/kong"
)

// completionCmd is `tine completion bash|zsh|fish`.
type completionCmd struct {
	Shell string `arg:"" name:"shell" enum:"bash,zsh,fish" help:"The shell to complete in: bash, zsh or fish."`
}

// Help shows how to install the script under `tine completion --help`.
func (c *completionCmd) Help() string {
	return `Prints a script that completes tine's verbs, subcommands and flags, built
from the same grammar the command line is parsed with, so it cannot name a
verb or flag tine does not have. After a verb that takes no subcommand, a
word that is not a flag completes as a file name.

Examples:

    $ source <(tine completion bash)          # in ~/.bashrc
    $ source <(tine completion zsh)           # in ~/.zshrc (uses bashcompinit)
    $ tine completion fish > ~/.config/fish/completions/tine.fish`
}

// Run prints the script.
func (c *completionCmd) Run(e *env) error {
	if err := e.refuseRepoFlag(""); err != nil {
		return err
	}
	table, err := completionTable()
	if err != nil {
		return err
	}
	p := e.printer()
	switch c.Shell {
	case "fish":
		writeFishCompletion(p, table)
	case "zsh":
		p.printf("#compdef tine\n# zsh completion for tine: tine completion zsh\nautoload -U +X bashcompinit && bashcompinit\n")
		writeBashCompletion(p, table)
	default:
		p.printf("# bash completion for tine: tine completion bash\n")
		writeBashCompletion(p, table)
	}
	return p.err
}

// complNode is one command path of the grammar ("" for tine itself,
// "index", "index rebuild") with the words that may follow it.
type complNode struct {
	path  string
	subs  []string
	flags []string
}

// complWord is what a word in a completion script may be: names are put
// between single quotes, so nothing else may reach the script. Compiled
// on first use, so no other verb pays for it at process start.
var complWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-{0,2}[A-Za-z0-9][A-Za-z0-9-]*$`) })

// completionTable walks tine's grammar: every command path with its
// subcommands and flags (the global flags at every level, as kong accepts
// them after a verb too). Hidden commands and flags are left out.
func completionTable() ([]complNode, error) {
	parser, err := kong.New(&cli{}, kong.Name("tine"), kong.Vars{"version": versionString()})
	if err != nil {
		return nil, fmt.Errorf("building the command grammar: %w", err)
	}
	global := flagWords(parser.Model.Node)
	var out []complNode
	var walk func(n *kong.Node, path string)
	walk = func(n *kong.Node, path string) {
		c := complNode{path: path}
		if n.Parent != nil {
			c.flags = append(c.flags, global...)
		}
		c.flags = append(c.flags, flagWords(n)...)
		for _, ch := range n.Children {
			if ch.Type != kong.CommandNode || ch.Hidden {
				continue
			}
			for _, name := range append([]string{ch.Name}, ch.Aliases...) {
				if complWord().MatchString(name) {
					c.subs = append(c.subs, name)
				}
			}
		}
		sort.Strings(c.subs)
		c.flags = dedupe(c.flags)
		out = append(out, c)
		for _, ch := range n.Children {
			if ch.Type == kong.CommandNode && !ch.Hidden && complWord().MatchString(ch.Name) {
				walk(ch, strings.TrimSpace(path+" "+ch.Name))
			}
		}
	}
	walk(parser.Model.Node, "")
	return out, nil
}

// flagWords lists a node's own visible flags as typed: --name and -s.
func flagWords(n *kong.Node) []string {
	var w []string
	for _, f := range n.Flags {
		if f.Hidden {
			continue
		}
		if s := "--" + f.Name; complWord().MatchString(s) {
			w = append(w, s)
		}
		if f.Short != 0 {
			if s := "-" + string(f.Short); complWord().MatchString(s) {
				w = append(w, s)
			}
		}
	}
	return w
}

// dedupe sorts words and drops repeats.
func dedupe(w []string) []string {
	sort.Strings(w)
	out := w[:0]
	for i, s := range w {
		if i == 0 || s != w[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// writeCases writes one shell case arm per command path: its quoted path
// and the words fn picks, through arm (the shell's case syntax).
func writeCases(p *printer, table []complNode, arm func(path, words string) string, fn func(complNode) []string) {
	for _, c := range table {
		if words := fn(c); len(words) > 0 {
			p.printf("%s", arm(c.path, strings.Join(words, " ")))
		}
	}
}

// writeBashCompletion writes the bash script (zsh runs it through
// bashcompinit): the command path is the words so far that name a
// subcommand of the path before them.
func writeBashCompletion(p *printer, table []complNode) {
	arm := func(path, words string) string { return fmt.Sprintf("\t'%s') echo '%s' ;;\n", path, words) }
	p.printf("_tine_subs() {\n\tcase \"$1\" in\n")
	writeCases(p, table, arm, func(c complNode) []string { return c.subs })
	p.printf("\tesac\n}\n_tine_flags() {\n\tcase \"$1\" in\n")
	writeCases(p, table, arm, func(c complNode) []string { return c.flags })
	p.printf(`	esac
}
_tine() {
	local cur="${COMP_WORDS[COMP_CWORD]}" path="" w i subs
	for ((i = 1; i < COMP_CWORD; i++)); do
		w="${COMP_WORDS[i]}"
		case " $(_tine_subs "$path") " in
		*" $w "*) path="${path:+$path }$w" ;;
		esac
	done
	subs="$(_tine_subs "$path")"
	COMPREPLY=()
	if [[ "$cur" == -* ]]; then
		COMPREPLY=($(compgen -W "$(_tine_flags "$path")" -- "$cur"))
	elif [[ -n "$subs" ]]; then
		COMPREPLY=($(compgen -W "$subs" -- "$cur"))
	fi
}
complete -o default -F _tine tine
`)
}

// writeFishCompletion writes the fish script: the same path walk, the
// candidates returned by one function fish filters by the typed prefix.
func writeFishCompletion(p *printer, table []complNode) {
	arm := func(path, words string) string {
		return fmt.Sprintf("        case '%s'\n            string split ' ' -- '%s'\n", path, words)
	}
	p.printf("# fish completion for tine: tine completion fish\nfunction __tine_subs\n    switch \"$argv[1]\"\n")
	writeCases(p, table, arm, func(c complNode) []string { return c.subs })
	p.printf("    end\nend\nfunction __tine_flags\n    switch \"$argv[1]\"\n")
	writeCases(p, table, arm, func(c complNode) []string { return c.flags })
	p.printf(`    end
end
function __tine_path
    set -l words (commandline -opc)
    set -l path ''
    if test (count $words) -gt 1
        for w in $words[2..-1]
            if contains -- $w (__tine_subs "$path")
                set path (string trim -- "$path $w")
            end
        end
    end
    echo $path
end
function __tine_has_subs
    set -l subs (__tine_subs (__tine_path))
    test (count $subs) -gt 0
end
function __tine_complete
    set -l path (__tine_path)
    if string match -q -- '-*' (commandline -ct)
        __tine_flags "$path"
    else
        __tine_subs "$path"
    end
end
complete -c tine -n __tine_has_subs -f -a '(__tine_complete)'
complete -c tine -n 'not __tine_has_subs' -a '(__tine_complete)'
`)
}
