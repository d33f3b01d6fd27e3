package target

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/internal/simrobot"
)

// ErrSimParam is wrapped by SimParamsYAML for a --sim-param it refuses.
var ErrSimParam = errors.New("--sim-param")

// SimParamsYAML turns --sim-param KEY=VALUE overrides into a ROS parameter file that the simulated robot's
// driver reads after the sim's own (rosorin-base run takes --config twice; a later file wins key by key, as
// ROS applies several parameter files). That is how a negative control breaks the driver without code of its
// own in the driver: priority_manual=5 puts the operator's input below autonomous (10), so arbitration keeps
// the lower priority winning and the take-over path must FAIL.
//
// Each KEY must be a parameter the driver knows (not an arm key, not a typo), each VALUE one YAML scalar of
// the key's type, no key twice, and the result, applied to the sim's configuration, must pass the driver's
// own validation: the driver would refuse to start otherwise, which is not what a negative control shows.
// nil and no error when kvs is empty.
func SimParamsYAML(kvs []string) ([]byte, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	params := &yaml.Node{Kind: yaml.MappingNode}
	seen := map[string]bool{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("%w %q: want KEY=VALUE, e.g. priority_manual=5", ErrSimParam, kv)
		}
		if seen[k] {
			return nil, fmt.Errorf("%w %s given twice: give each parameter once", ErrSimParam, k)
		}
		seen[k] = true
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(v), &doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%w %s=%s: the value must be one number, true/false or word", ErrSimParam, k, v)
		}
		val := doc.Content[0]
		val.Line, val.Column = 0, 0
		params.Content = append(params.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, val)
	}
	root := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: config.NodeName},
		{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: "ros__parameters"}, params}},
	}}
	b, err := yaml.Marshal(root)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSimParam, err)
	}
	b = append([]byte("# stopproof --sim-param: overrides of the simulated robot's driver parameters (a negative control).\n"), b...)

	c := config.Default()
	if _, err := config.Parse(&c, "the simulated robot's configuration", []byte(simrobot.RobotConfig)); err != nil {
		return nil, fmt.Errorf("%w: internal: %v", ErrSimParam, err)
	}
	notes, err := config.Parse(&c, "--sim-param", b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSimParam, err)
	}
	for _, n := range notes {
		if n.Kind == config.NoteUnknownKey || n.Kind == config.NoteArmKey {
			msg := "not a parameter of the driver"
			if n.Msg != "" {
				msg += "; " + n.Msg
			}
			return nil, fmt.Errorf("%w %s: %s", ErrSimParam, n.Key, msg)
		}
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%w: the driver would refuse this configuration: %v", ErrSimParam, err)
	}
	return b, nil
}
