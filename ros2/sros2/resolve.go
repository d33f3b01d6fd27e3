package sros2

import "fmt"

// Resolve decides what a node does with settings s: no security (nil, nil, nil) when it is not enabled; the
// checked enclave when it loads; when it does not, under Enforce an error that says why and refuses the
// node, under Permissive no enclave and that error as a warning to log (the node runs without security, as
// rcl's Permissive strategy does).
func Resolve(s Settings, o Options) (e *Enclave, warn, err error) {
	if !s.Enable {
		return nil, nil, nil
	}
	e, lerr := Load(s.Keystore, s.Enclave, o)
	if lerr == nil {
		return e, nil, nil
	}
	if s.Strategy == Enforce {
		return nil, nil, fmt.Errorf("ROS 2 security enforced (%s=Enforce) and enclave %q of %s unusable: %w", EnvStrategy, s.Enclave, s.Keystore, lerr)
	}
	return nil, fmt.Errorf("ROS 2 security is on but enclave %q of %s is unusable, so this node runs WITHOUT security (%s=Permissive; set Enforce to refuse instead): %w", s.Enclave, s.Keystore, EnvStrategy, lerr), nil
}
