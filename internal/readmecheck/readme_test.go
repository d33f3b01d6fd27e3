package readmecheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the repository's root, from this package's folder.
const root = "../.."

// mapBlock returns the README's "Where things are" code block.
func mapBlock(readme string) string {
	_, after, ok := strings.Cut(readme, "## Where things are")
	if !ok {
		return ""
	}
	_, after, _ = strings.Cut(after, "```\n")
	block, _, _ := strings.Cut(after, "```")
	return block
}

// missingPackages returns the packages (paths relative to the module) the README does not name: a package is
// named when its path appears anywhere in the README, or its last element appears as a word in the map block
// and its parent's path does too (the map's "internal/...  testkit, stacktest, procfs" lines).
func missingPackages(readme string, pkgs []string) []string {
	block := mapBlock(readme)
	var missing []string
	for _, p := range pkgs {
		if strings.Contains(readme, p) {
			continue
		}
		parent, last := filepath.Dir(p), filepath.Base(p)
		word := regexp.MustCompile(`\b` + regexp.QuoteMeta(last) + `\b`)
		if parent != "." && strings.Contains(block, parent) && word.MatchString(block) {
			continue
		}
		missing = append(missing, p)
	}
	return missing
}

// missingWords returns the words the README does not contain as `word` (in backquotes: `/tf` is not named by
// `/tf_static`).
func missingWords(readme string, words []string) []string {
	var missing []string
	for _, w := range words {
		if !strings.Contains(readme, "`"+w+"`") {
			missing = append(missing, w)
		}
	}
	return missing
}

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestREADMENamesEveryPackage: every package of the module and every cmd/ binary is in the README.
func TestREADMENamesEveryPackage(t *testing.T) {
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		_, rel, ok := strings.Cut(l, "github.com/rosorin/rosorin/")
		if ok {
			pkgs = append(pkgs, rel)
		}
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages: %v", len(pkgs), pkgs)
	}
	rm := readme(t)
	if m := missingPackages(rm, pkgs); len(m) > 0 {
		t.Errorf("packages the README's map does not name (add them to \"Where things are\"): %v", m)
	}
	cmds, _ := filepath.Glob(filepath.Join(root, "cmd", "*", "main.go"))
	if len(cmds) < 4 {
		t.Fatalf("found %d commands", len(cmds))
	}
	for _, c := range cmds {
		name := filepath.Base(filepath.Dir(c))
		if !strings.Contains(rm, "cmd/"+name) {
			t.Errorf("the README does not name cmd/%s", name)
		}
	}
}

// TestREADMENamesEveryTopic: every topic the bridge publishes or subscribes (its outputs table, read from ros2's
// source so the test needs no DDS, and its other endpoints) is in the README's ROS 2 paragraph.
func TestREADMENamesEveryTopic(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(root, "ros2", "bridge.go"))
	if err != nil {
		t.Fatal(err)
	}
	topics := bridgeTopics(src)
	if !slices.Contains(topics, "imu/data_raw") || !slices.Contains(topics, "~/state") || !slices.Contains(topics, "/tf") {
		t.Fatalf("topics read from ros2/bridge.go: %v; the outputs table changed shape, fix bridgeTopics", topics)
	}
	// The bridge's other endpoints, not streams of the driver: the velocity inputs and the e-stop, the logs,
	// diagnostics and static transforms it publishes of its own, and its services (docs/ros2.md's table).
	topics = append(topics, "cmd_vel", "autonomous/cmd_vel", "manual/cmd_vel", "estop", "/rosout", "/diagnostics",
		"/tf_static", "~/enable", "~/reset_estop")
	if m := missingWords(readme(t), topics); len(m) > 0 {
		t.Errorf("topics and services the README does not name: %v", m)
	}
}

// bridgeTopics returns the topic strings of the bridge's outputs table: {api.TopicX, "topic", ...}.
func bridgeTopics(src []byte) []string {
	_, table, ok := bytes.Cut(src, []byte("var outputs = []"))
	if !ok {
		return nil
	}
	table, _, _ = bytes.Cut(table, []byte("\n}\n"))
	var out []string
	for _, m := range regexp.MustCompile(`\{api\.Topic\w+, "([^"]+)"`).FindAllSubmatch(table, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// TestREADMECheckCanFail: the checks above on a README that lacks a package, a command and a topic.
func TestREADMECheckCanFail(t *testing.T) {
	rm := "# x\n## Where things are\n```\ninternal/...   testkit, procfs\nproofs/stand   the judge\n```\n"
	if m := missingPackages(rm, []string{"internal/procfs", "proofs/stand", "proofs/floor", "internal/rawio"}); !slices.Equal(m, []string{"proofs/floor", "internal/rawio"}) {
		t.Errorf("missing packages %v, want proofs/floor and internal/rawio", m)
	}
	if m := missingWords(rm+"`/tf_static` and /tf", []string{"/tf", "/tf_static"}); !slices.Equal(m, []string{"/tf"}) {
		t.Errorf("missing topics %v, want /tf (named plain, and inside `/tf_static`)", m)
	}
	src := []byte("var outputs = []output{\n\t{api.TopicIMU, \"imu/data_raw\", x, nil},\n\t// c\n\t{api.TopicOdom, \"/tf\", y, publishOdomTF},\n}\n")
	if got := bridgeTopics(src); !slices.Equal(got, []string{"imu/data_raw", "/tf"}) {
		t.Errorf("bridgeTopics %v", got)
	}
}
