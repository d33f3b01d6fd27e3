// Package ciconfig reads the example CI files of deploy/ci (a GitHub Actions workflow and a GitLab CI
// pipeline) far enough to check them: the jobs, their matrices, and every stopproof and rosorin-base command
// line they run, expanded per matrix entry with the variables a runner would give them. The checks are the
// commands against the real command-line apps (CheckArgs: every command and flag exists) and the shard
// matrix (CheckShards: 1/n..n/n, each once). cmd/stopproof's and cmd/rosorin-base's tests run them against
// their own apps, and run the on-change job's commands on the simulator.
package ciconfig

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"
)

// RunnerEnv are the variables the example files set in an earlier step of a job ($GITHUB_ENV, a GitLab
// export), as a runner would have them: the merge job's STAMP, its summary's name in the history.
var RunnerEnv = map[string]string{"STAMP": "20261204T021700Z"}

// Programs are the tools whose command lines are checked.
var Programs = []string{"stopproof", "rosorin-base"}

// Job is one job of a workflow, once per matrix entry (Matrix is that entry; nil without a matrix).
type Job struct {
	Name   string
	Matrix map[string]string
	Env    map[string]string
	// Labels are where it runs: GitHub's runs-on, GitLab's tags (matrix values expanded).
	Labels []string
	// Scripts are its shell lines in order (continuations joined), matrix expressions expanded.
	Scripts []string
}

// Command is one stopproof or rosorin-base command line of a job.
type Command struct {
	Job  string
	Line string   // the shell line as written (expanded)
	Prog string   // "stopproof" or "rosorin-base"
	Args []string // after the program, variables substituted
	// WantExit is the exit status the line expects: 0, or N in `rc=0; CMD || rc=$?; test "$rc" -eq N` (a
	// negative control), or AnyVerdict in `CMD || FAILED=1`.
	WantExit int
}

// Workflow is a parsed CI file.
type Workflow struct {
	File string
	Kind string // "github" or "gitlab"
	Jobs []Job
	// MatrixOf is each job's matrix entries (job name -> entries), before expansion.
	MatrixOf map[string][]map[string]string
}

// Load reads a CI file: a GitHub workflow (it has jobs:) or a GitLab pipeline.
func Load(path string) (*Workflow, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Parse reads a CI file's bytes.
func Parse(file string, b []byte) (*Workflow, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if doc == nil {
		return nil, fmt.Errorf("%s: empty", file)
	}
	w := &Workflow{File: file, MatrixOf: map[string][]map[string]string{}}
	var err2 error
	if _, ok := doc["jobs"]; ok {
		w.Kind = "github"
		err2 = w.github(doc)
	} else {
		w.Kind = "gitlab"
		err2 = w.gitlab(doc)
	}
	if err2 != nil {
		return nil, fmt.Errorf("%s: %w", file, err2)
	}
	return w, nil
}

func strMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := map[string]string{}
	for k, x := range m {
		out[k] = fmt.Sprint(x)
	}
	return out
}

func entries(v any) []map[string]string {
	l, _ := v.([]any)
	var out []map[string]string
	for _, e := range l {
		out = append(out, strMap(e))
	}
	return out
}

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

var ghExpr = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// ghExpand expands ${{ matrix.X }}; any other expression becomes "X" (a value the check cannot know).
func ghExpand(s string, matrix map[string]string) string {
	return ghExpr.ReplaceAllStringFunc(s, func(e string) string {
		x := strings.TrimSpace(ghExpr.FindStringSubmatch(e)[1])
		if k, ok := strings.CutPrefix(x, "matrix."); ok {
			if v, ok := matrix[k]; ok {
				return v
			}
		}
		return "X"
	})
}

func (w *Workflow) github(doc map[string]any) error {
	wenv := strMap(doc["env"])
	jobs, _ := doc["jobs"].(map[string]any)
	if len(jobs) == 0 {
		return fmt.Errorf("no jobs")
	}
	for _, name := range sortedKeys(jobs) {
		j, _ := jobs[name].(map[string]any)
		var ms []map[string]string
		if st, ok := j["strategy"].(map[string]any); ok {
			if m, ok := st["matrix"].(map[string]any); ok {
				ms = entries(m["include"])
				if len(ms) == 0 {
					return fmt.Errorf("job %s: a matrix without include: entries (the check reads include: lists only)", name)
				}
			}
		}
		w.MatrixOf[name] = ms
		if ms == nil {
			ms = []map[string]string{nil}
		}
		for _, m := range ms {
			job := Job{Name: name, Matrix: m}
			env := merge(wenv, strMap(j["env"]))
			for k, v := range env {
				env[k] = ghExpand(v, m)
			}
			job.Env = env
			switch ro := j["runs-on"].(type) {
			case string:
				job.Labels = []string{ghExpand(ro, m)}
			case []any:
				for _, l := range ro {
					job.Labels = append(job.Labels, ghExpand(fmt.Sprint(l), m))
				}
			}
			steps, _ := j["steps"].([]any)
			for _, s := range steps {
				sm, _ := s.(map[string]any)
				run, ok := sm["run"].(string)
				if !ok {
					continue
				}
				for k, v := range strMap(sm["env"]) {
					job.Env[k] = ghExpand(v, m)
				}
				job.Scripts = append(job.Scripts, lines(ghExpand(run, m))...)
			}
			w.Jobs = append(w.Jobs, job)
		}
	}
	return nil
}

var glReserved = []string{"stages", "variables", "default", "include", "workflow", "image", "services", "cache", "before_script", "after_script"}

func (w *Workflow) gitlab(doc map[string]any) error {
	gvars := strMap(doc["variables"])
	var defBefore []string
	if d, ok := doc["default"].(map[string]any); ok {
		defBefore = scriptList(d["before_script"])
	}
	n := 0
	for _, name := range sortedKeys(doc) {
		if slices.Contains(glReserved, name) || strings.HasPrefix(name, ".") {
			continue
		}
		j, ok := doc[name].(map[string]any)
		if !ok {
			continue
		}
		if _, ok := j["script"]; !ok {
			continue
		}
		n++
		var ms []map[string]string
		if p, ok := j["parallel"].(map[string]any); ok {
			ms = entries(p["matrix"])
		}
		w.MatrixOf[name] = ms
		if ms == nil {
			ms = []map[string]string{nil}
		}
		before := defBefore
		if _, ok := j["before_script"]; ok {
			before = scriptList(j["before_script"])
		}
		for _, m := range ms {
			job := Job{Name: name, Matrix: m, Env: merge(gvars, strMap(j["variables"]), m)}
			for k, v := range job.Env { // GitLab expands a variable's variables ($ROBOT in RIG)
				job.Env[k] = Expand(v, merge(gvars, m))
			}
			tags, _ := j["tags"].([]any)
			for _, t := range tags {
				job.Labels = append(job.Labels, Expand(fmt.Sprint(t), job.Env))
			}
			for _, s := range append(slices.Clone(before), scriptList(j["script"])...) {
				job.Scripts = append(job.Scripts, lines(s)...)
			}
			w.Jobs = append(w.Jobs, job)
		}
	}
	if n == 0 {
		return fmt.Errorf("no jobs (no key with a script:)")
	}
	return nil
}

func scriptList(v any) []string {
	switch s := v.(type) {
	case string:
		return []string{s}
	case []any:
		var out []string
		for _, x := range s {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// lines splits a script into shell lines, joining backslash continuations.
func lines(s string) []string {
	var out []string
	cur := ""
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if c, ok := strings.CutSuffix(t, "\\"); ok {
			cur += c + " "
			continue
		}
		cur += t
		if strings.TrimSpace(cur) != "" {
			out = append(out, strings.TrimSpace(cur))
		}
		cur = ""
	}
	if strings.TrimSpace(cur) != "" {
		out = append(out, strings.TrimSpace(cur))
	}
	return out
}

// AnyVerdict is the WantExit of `CMD || NAME=1` (the verdict kept for a later step): 0 or 1, never 2.
const AnyVerdict = -1

var orFlagRE = regexp.MustCompile(`^(.*?)\s*\|\|\s*[A-Za-z_][A-Za-z0-9_]*=1$`)

var negRE = regexp.MustCompile(`^rc=0;\s*(.*?)\s*\|\|\s*rc=\$\?;\s*test\s+"?\$rc"?\s+-eq\s+(\d+)$`)

// Commands are the job's stopproof and rosorin-base command lines (also as `go run ./cmd/PROG`), with env's
// variables substituted; a line whose program is another is no command of ours. A comment ends a line.
func (j Job) Commands() ([]Command, error) {
	var out []Command
	for _, l := range j.Scripts {
		cmdline, want := l, 0
		if m := negRE.FindStringSubmatch(l); m != nil {
			cmdline = m[1]
			want, _ = strconv.Atoi(m[2])
		} else if m := orFlagRE.FindStringSubmatch(l); m != nil {
			cmdline, want = m[1], AnyVerdict
		}
		if f := strings.Fields(cmdline); len(f) == 0 || !(slices.Contains(Programs, f[0]) || (f[0] == "go" && len(f) > 2 && f[1] == "run")) {
			continue // another program's line: not ours to check (it may use what Split refuses)
		}
		toks, err := Split(cmdline, merge(RunnerEnv, j.Env))
		if err != nil {
			return nil, fmt.Errorf("job %s: %q: %w", j.Name, l, err)
		}
		if len(toks) >= 3 && toks[0] == "go" && toks[1] == "run" {
			toks = toks[2:]
			for len(toks) > 0 && strings.HasPrefix(toks[0], "-") { // go run -tags ... ./cmd/x
				toks = toks[1:]
			}
			if len(toks) > 0 {
				toks[0] = strings.TrimPrefix(strings.TrimPrefix(toks[0], "./cmd/"), "github.com/rosorin/rosorin/cmd/")
			}
		}
		if len(toks) == 0 || !slices.Contains(Programs, toks[0]) {
			continue
		}
		for _, t := range toks {
			if t == "|" || t == ";" || t == "&&" || t == "||" || t == ">" {
				return nil, fmt.Errorf("job %s: %q: one command a line (no pipes, redirections or lists): the check runs it as written", j.Name, l)
			}
		}
		out = append(out, Command{Job: j.Name, Line: l, Prog: toks[0], Args: toks[1:], WantExit: want})
	}
	return out, nil
}

// Split splits a shell line into words: single and double quotes, backslash escapes, $VAR and ${VAR} from
// env (an unknown variable is an error: the check would run something else than CI does), a # comment.
// Command substitution is refused; a glob is left as written (the runner of the lines expands it).
func Split(line string, env map[string]string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord, sq, dq := false, false, false
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case sq:
			if c == '\'' {
				sq = false
			} else {
				cur.WriteRune(c)
			}
			continue
		case c == '\'' && !dq:
			sq, inWord = true, true
			continue
		case c == '"':
			dq, inWord = !dq, true
			continue
		case c == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			inWord = true
			continue
		case c == '`' || (c == '$' && i+1 < len(rs) && rs[i+1] == '('):
			return nil, fmt.Errorf("command substitution: not checkable; compute it in a step before and pass a variable")
		case c == '$':
			j := i + 1
			brace := j < len(rs) && rs[j] == '{'
			if brace {
				j++
			}
			k := j
			for k < len(rs) && (rs[k] == '_' || (rs[k] >= 'A' && rs[k] <= 'Z') || (rs[k] >= 'a' && rs[k] <= 'z') || (rs[k] >= '0' && rs[k] <= '9')) {
				k++
			}
			name := string(rs[j:k])
			if name == "" {
				cur.WriteRune(c)
				inWord = true
				continue
			}
			if brace {
				if k >= len(rs) || rs[k] != '}' {
					return nil, fmt.Errorf("${%s: no closing brace (defaults and other expansions are not checkable)", name)
				}
				k++
			}
			v, ok := env[name]
			if !ok {
				return nil, fmt.Errorf("$%s: not set by the workflow (env:/variables:) nor by the check", name)
			}
			cur.WriteString(v)
			inWord = true
			i = k - 1
			continue
		case dq:
			cur.WriteRune(c)
			continue
		case c == '#' && !inWord:
			i = len(rs)
			continue
		case c == ' ' || c == '\t':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
			continue
		}
		cur.WriteRune(c)
		inWord = true
	}
	if sq || dq {
		return nil, fmt.Errorf("unterminated quote")
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// CheckArgs checks a command line against the app: every command and subcommand named exists, every flag
// exists on the command it is given to (or is --help), and a flag that takes a value has one.
func CheckArgs(app *cli.App, args []string) error {
	flags := app.Flags
	cmds := app.Commands
	var cmd *cli.Command
	path := app.Name
	positional := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			name, _, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if name == "help" || name == "h" {
				continue
			}
			f := findFlag(flags, name)
			if f == nil {
				return fmt.Errorf("%s: no flag --%s (%s has %s)", path, name, path, flagNames(flags))
			}
			if takesValue(f) && !hasVal {
				if i+1 >= len(args) {
					return fmt.Errorf("%s: --%s needs a value", path, name)
				}
				i++
			}
			continue
		}
		if !positional {
			if c := findCommand(cmds, a); c != nil {
				cmd, flags, cmds, path = c, c.Flags, c.Subcommands, path+" "+c.Name
				continue
			}
			if cmd == nil {
				return fmt.Errorf("%s: no command %q", app.Name, a)
			}
		}
		positional = true
	}
	if cmd == nil {
		return fmt.Errorf("%s: no command given", app.Name)
	}
	if cmd.Action == nil && len(cmd.Subcommands) > 0 {
		return fmt.Errorf("%s: which subcommand?", path)
	}
	return nil
}

func findFlag(fs []cli.Flag, name string) cli.Flag {
	for _, f := range fs {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

func findCommand(cs []*cli.Command, name string) *cli.Command {
	for _, c := range cs {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return c
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	if d, ok := f.(cli.DocGenerationFlag); ok {
		return d.TakesValue()
	}
	return true
}

func flagNames(fs []cli.Flag) string {
	var ns []string
	for _, f := range fs {
		ns = append(ns, "--"+f.Names()[0])
	}
	return strings.Join(ns, " ")
}

// CheckShards checks a campaign matrix's shard values: all "i/n" of one n, covering 1..n, each once. key
// names the matrix variable ("shard", "SHARD").
func CheckShards(entries []map[string]string, key string) (n int, err error) {
	seen := map[int]bool{}
	for _, e := range entries {
		s, ok := e[key]
		if !ok {
			return 0, fmt.Errorf("matrix entry %v has no %s", e, key)
		}
		a, b, ok := strings.Cut(s, "/")
		i, err1 := strconv.Atoi(a)
		m, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || m < 1 || i < 1 || i > m {
			return 0, fmt.Errorf("%s %q: want i/n with 1 <= i <= n", key, s)
		}
		if n == 0 {
			n = m
		}
		if m != n {
			return 0, fmt.Errorf("%s %q: the matrix mixes n=%d and n=%d: one campaign, one n", key, s, n, m)
		}
		if seen[i] {
			return 0, fmt.Errorf("%s %q twice: a shard runs once (its runs would be counted twice)", key, s)
		}
		seen[i] = true
	}
	for i := 1; i <= n; i++ {
		if !seen[i] {
			return 0, fmt.Errorf("%s %d/%d is in no matrix entry: its runs would never run", key, i, n)
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("no shards")
	}
	return n, nil
}

// Expand substitutes $VAR and ${VAR} from env in s (unknown ones are left as they are).
func Expand(s string, env map[string]string) string {
	return os.Expand(s, func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return "$" + k
	})
}
