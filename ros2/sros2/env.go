package sros2

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The environment variables of ROS 2 security (rcl/security.h).
const (
	EnvEnable          = "ROS_SECURITY_ENABLE"
	EnvStrategy        = "ROS_SECURITY_STRATEGY"
	EnvKeystore        = "ROS_SECURITY_KEYSTORE"
	EnvEnclaveOverride = "ROS_SECURITY_ENCLAVE_OVERRIDE"
)

// Strategy is what a node does when security is enabled but its enclave cannot be used.
type Strategy int

const (
	// Permissive (rcl's default): run without security.
	Permissive Strategy = iota
	// Enforce: refuse to run.
	Enforce
)

func (s Strategy) String() string {
	if s == Enforce {
		return "Enforce"
	}
	return "Permissive"
}

// Settings is a node's security configuration as read from its environment and arguments.
type Settings struct {
	Enable   bool
	Strategy Strategy
	Keystore string // ROS_SECURITY_KEYSTORE
	Enclave  string // absolute enclave name, "/" by default
}

// FromEnv reads the settings as rcl does: security only when ROS_SECURITY_ENABLE is "true"; Enforce only for
// "Enforce"; the enclave from ROS_SECURITY_ENCLAVE_OVERRIDE if set and not empty, else enclaveArg (the node's
// --enclave), else "/". Values rcl would silently take as "off" or "Permissive" ("True", "1", "enforce")
// are errors here.
func FromEnv(getenv func(string) string, enclaveArg string) (Settings, error) {
	var s Settings
	switch v := getenv(EnvEnable); v {
	case "true":
		s.Enable = true
	case "", "false":
	default:
		return s, fmt.Errorf("sros2: %s=%q: ROS 2 turns security on only for exactly \"true\" and would run this node without it; set true or false", EnvEnable, v)
	}
	switch v := getenv(EnvStrategy); v {
	case "Enforce":
		s.Strategy = Enforce
	case "", "Permissive":
	default:
		return s, fmt.Errorf("sros2: %s=%q: ROS 2 takes anything but \"Enforce\" as Permissive; set Enforce or Permissive", EnvStrategy, v)
	}
	s.Keystore = getenv(EnvKeystore)
	s.Enclave = "/"
	if enclaveArg != "" {
		s.Enclave = enclaveArg
	}
	if o := getenv(EnvEnclaveOverride); o != "" {
		s.Enclave = o
	}
	if !strings.HasPrefix(s.Enclave, "/") {
		return s, fmt.Errorf("sros2: enclave %q is not absolute (an enclave is a name such as /robot)", s.Enclave)
	}
	if s.Enclave != "/" {
		for _, seg := range strings.Split(s.Enclave[1:], "/") {
			if seg == "" || seg == "." || seg == ".." {
				return s, fmt.Errorf("sros2: enclave %q: empty, \".\" or \"..\" path segment", s.Enclave)
			}
		}
	}
	if s.Enable && s.Keystore == "" {
		return s, fmt.Errorf("sros2: %s=true but %s is not set: point it at the keystore `ros2 security create_keystore` made", EnvEnable, EnvKeystore)
	}
	return s, nil
}

// EnclaveDir is the enclave's directory in the keystore, as rcl's exact_match_lookup makes it:
// <keystore>/enclaves for "/", else <keystore>/enclaves/<enclave without the leading slash>.
func EnclaveDir(keystore, enclave string) string {
	dir := filepath.Join(keystore, "enclaves")
	if enclave == "/" {
		return dir
	}
	return filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(enclave, "/")))
}
