package sros2_test

import (
	"strings"
	"testing"

	"github.com/rosorin/rosorin/ros2/sros2"
	"github.com/rosorin/rosorin/ros2/sros2/sros2test"
)

// TestResolve: off does nothing; a good enclave is used under both strategies; a missing or bad one refuses
// under Enforce and warns under Permissive.
func TestResolve(t *testing.T) {
	needOpenSSL(t)
	ks, err := sros2test.Create(t.TempDir(), sros2test.GovernanceXML(sros2test.SROS2Default))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ks.Enclave("/robot", robotPolicy, sros2test.EnclaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ks.Enclave("/unsigned", robotPolicy, sros2test.EnclaveOptions{Unsigned: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		s         sros2.Settings
		enclave   bool
		warn, err string
	}{
		{"off", sros2.Settings{Strategy: sros2.Enforce, Keystore: "/nowhere", Enclave: "/robot"}, false, "", ""},
		{"enforce, good", sros2.Settings{Enable: true, Strategy: sros2.Enforce, Keystore: ks.Dir, Enclave: "/robot"}, true, "", ""},
		{"permissive, good", sros2.Settings{Enable: true, Keystore: ks.Dir, Enclave: "/robot"}, true, "", ""},
		{"enforce, no enclave", sros2.Settings{Enable: true, Strategy: sros2.Enforce, Keystore: ks.Dir, Enclave: "/other"}, false, "", "create_enclave"},
		{"enforce, no keystore", sros2.Settings{Enable: true, Strategy: sros2.Enforce, Keystore: ks.Dir + "/nope", Enclave: "/robot"}, false, "", "create_keystore"},
		{"enforce, unsigned permissions", sros2.Settings{Enable: true, Strategy: sros2.Enforce, Keystore: ks.Dir, Enclave: "/unsigned"}, false, "", "permissions.p7s: not signed"},
		{"permissive, unsigned permissions", sros2.Settings{Enable: true, Keystore: ks.Dir, Enclave: "/unsigned"}, false, "WITHOUT security", ""},
		{"permissive, no enclave", sros2.Settings{Enable: true, Keystore: ks.Dir, Enclave: "/other"}, false, "WITHOUT security", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, warn, err := sros2.Resolve(c.s, sros2.Options{})
			if (e != nil) != c.enclave {
				t.Errorf("enclave %v, want one: %v", e, c.enclave)
			}
			if c.warn == "" && warn != nil || c.warn != "" && (warn == nil || !strings.Contains(warn.Error(), c.warn)) {
				t.Errorf("warning %v, want %q", warn, c.warn)
			}
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Errorf("error %v, want %q", err, c.err)
			}
		})
	}
}
