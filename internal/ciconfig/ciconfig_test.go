package ciconfig

import (
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestSplit(t *testing.T) {
	env := map[string]string{"RIG": "rigs/a b.yaml", "N": "2"}
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{`stopproof prove --rig "$RIG" estop`, []string{"stopproof", "prove", "--rig", "rigs/a b.yaml", "estop"}, ""},
		{`a 'x $RIG' ${N}x # comment`, []string{"a", "x $RIG", "2x"}, ""},
		{`a --tolerance 10% b\ c`, []string{"a", "--tolerance", "10%", "b c"}, ""},
		{`a history/*.json`, []string{"a", "history/*.json"}, ""},
		{`a $NOPE`, nil, "$NOPE: not set"},
		{`a $(date)`, nil, "command substitution"},
		{`a "open`, nil, "unterminated"},
	} {
		got, err := Split(c.in, env)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want an error with %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: %q %v, want %q", c.in, got, err, c.want)
		}
	}
}

func TestCheckShards(t *testing.T) {
	sh := func(s ...string) []map[string]string {
		var out []map[string]string
		for _, x := range s {
			out = append(out, map[string]string{"shard": x})
		}
		return out
	}
	if n, err := CheckShards(sh("2/3", "1/3", "3/3"), "shard"); n != 3 || err != nil {
		t.Errorf("1..3 of 3: %d %v", n, err)
	}
	for _, c := range []struct {
		s   []string
		err string
	}{
		{[]string{"1/2"}, "2/2 is in no matrix entry"},
		{[]string{"1/2", "1/2", "2/2"}, "twice"},
		{[]string{"1/2", "2/3"}, "mixes"},
		{[]string{"0/2"}, "want i/n"},
		{[]string{"3/2"}, "want i/n"},
		{nil, "no shards"},
	} {
		if _, err := CheckShards(sh(c.s...), "shard"); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v: %v, want %q", c.s, err, c.err)
		}
	}
}

func testApp() *cli.App {
	return &cli.App{Name: "tool", Commands: []*cli.Command{
		{Name: "prove", Flags: []cli.Flag{&cli.StringFlag{Name: "rig"}, &cli.BoolFlag{Name: "sim"}}, Action: func(*cli.Context) error { return nil }},
		{Name: "campaign", Action: func(*cli.Context) error { return nil }, Subcommands: []*cli.Command{
			{Name: "resume", Flags: []cli.Flag{&cli.BoolFlag{Name: "sim"}}, Action: func(*cli.Context) error { return nil }}}},
	}}
}

func TestCheckArgs(t *testing.T) {
	app := testApp()
	for _, ok := range [][]string{
		{"prove", "--rig", "r.yaml", "estop"}, {"prove", "--sim", "estop", "--rig=x"}, {"campaign", "resume", "--sim", "dir"},
		{"prove", "--help"},
	} {
		if err := CheckArgs(app, ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"prove", "--rigg", "x"}, "no flag --rigg"},
		{[]string{"prove", "--rig"}, "needs a value"},
		{[]string{"proove"}, `no command "proove"`},
		{[]string{"campaign", "resume", "--rig", "x"}, "tool campaign resume: no flag --rig"},
		{nil, "no command given"},
	} {
		if err := CheckArgs(app, c.args); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: %v, want %q", c.args, err, c.err)
		}
	}
}

const gh = `
on: push
env: {PLAN: p.yaml}
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: |
          go build ./...
          echo "$(date)" > x
          stopproof prove --rig r.yaml \
            --sim estop
      - run: rc=0; stopproof prove --sim estop || rc=$?; test "$rc" -eq 1
  b:
    strategy: {matrix: {include: [{robot: r1, shard: 1/2}, {robot: r2, shard: 2/2}]}}
    runs-on: [self-hosted, "${{ matrix.robot }}"]
    env: {RIG: "rigs/${{ matrix.robot }}.yaml"}
    steps:
      - run: stopproof campaign --rig "$RIG" "$PLAN" || FAILED=1
`

func TestParseGitHub(t *testing.T) {
	w, err := Parse("gh.yml", []byte(gh))
	if err != nil {
		t.Fatal(err)
	}
	if w.Kind != "github" || len(w.Jobs) != 3 || len(w.MatrixOf["b"]) != 2 {
		t.Fatalf("%+v", w)
	}
	cs, err := w.Jobs[0].Commands()
	if err != nil || len(cs) != 2 || !slices.Equal(cs[0].Args, []string{"prove", "--rig", "r.yaml", "--sim", "estop"}) || cs[1].WantExit != 1 {
		t.Fatalf("%+v %v", cs, err)
	}
	cs, err = w.Jobs[2].Commands()
	if err != nil || len(cs) != 1 || cs[0].Args[2] != "rigs/r2.yaml" || cs[0].WantExit != AnyVerdict || !slices.Contains(w.Jobs[2].Labels, "r2") {
		t.Fatalf("%+v %v %v", cs, err, w.Jobs[2].Labels)
	}
}

func TestParseGitLab(t *testing.T) {
	w, err := Parse("gl.yml", []byte(`
variables: {PLAN: p.yaml}
default: {before_script: [go build ./...]}
stages: [a]
.hidden: {script: [stopproof nope]}
job:
  parallel: {matrix: [{ROBOT: r1, SHARD: 1/1}]}
  tags: [$ROBOT]
  variables: {RIG: rigs/$ROBOT.yaml}
  script:
    - stopproof campaign --rig "$RIG" --shard "$SHARD" "$PLAN"
`))
	if err != nil {
		t.Fatal(err)
	}
	if w.Kind != "gitlab" || len(w.Jobs) != 1 || w.Jobs[0].Labels[0] != "r1" {
		t.Fatalf("%+v", w)
	}
	cs, err := w.Jobs[0].Commands()
	// GitLab expands a job variable's own variables ($ROBOT in RIG): the check does too.
	if err != nil || len(cs) != 1 || cs[0].Args[2] != "rigs/r1.yaml" || cs[0].Args[4] != "1/1" {
		t.Fatalf("%+v %v", cs, err)
	}
}
