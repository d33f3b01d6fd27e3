package sros2

import (
	"os"
	"path/filepath"
	"runtime"
)

// Property is one participant QoS property (name, value), as dds_qset_prop takes it.
type Property struct{ Name, Value string }

// Plugins are the three plugin libraries of Cyclone DDS Security: a path to the shared object, or a bare name
// ("dds_security_auth") that Cyclone turns into libdds_security_auth.so on the loader's search path.
type Plugins struct{ Auth, Access, Crypto string }

// The directory where Debian's libddsc0debian (0.10.2) ships the plugins. It is not on the loader's search path;
// Debian's libddsc falls back to it for bare names (its ddsrt_dlopen tries "/usr/lib/<triplet>/libddsc0debian/
// lib%s%s" last, seen with strace), but the full path says in the participant's QoS which file is loaded and
// does not depend on that patch.
func debianPluginDirs() []string {
	triplet := map[string]string{"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu", "arm": "arm-linux-gnueabihf", "riscv64": "riscv64-linux-gnu"}[runtime.GOARCH]
	if triplet == "" {
		return nil
	}
	return []string{filepath.Join("/usr/lib", triplet, "libddsc0debian")}
}

// DefaultPlugins finds the plugins: $ROSORIN_DDS_SECURITY_PLUGINS (a directory) if set, else Debian's
// libddsc0debian directory if it holds them, else the bare names (as rmw_cyclonedds sets them).
func DefaultPlugins() Plugins {
	dirs := debianPluginDirs()
	if d := os.Getenv("ROSORIN_DDS_SECURITY_PLUGINS"); d != "" {
		dirs = []string{d}
	}
	for _, d := range dirs {
		p := Plugins{filepath.Join(d, "libdds_security_auth.so"), filepath.Join(d, "libdds_security_ac.so"), filepath.Join(d, "libdds_security_crypto.so")}
		if exists(p.Auth) && exists(p.Access) && exists(p.Crypto) {
			return p
		}
	}
	return Plugins{"dds_security_auth", "dds_security_ac", "dds_security_crypto"}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// Property names of Cyclone DDS 0.10 (dds/security/dds_security_api_defs.h; the first six and the library
// triples are required, ddsi_participant.c), with the values rmw_cyclonedds_cpp uses.
const (
	PropIdentityCA     = "dds.sec.auth.identity_ca"
	PropCert           = "dds.sec.auth.identity_certificate"
	PropKey            = "dds.sec.auth.private_key"
	PropPermissionsCA  = "dds.sec.access.permissions_ca"
	PropGovernance     = "dds.sec.access.governance"
	PropPermissions    = "dds.sec.access.permissions"
	PropCRL            = "org.eclipse.cyclonedds.sec.auth.crl"
	PropAuthPath       = "dds.sec.auth.library.path"
	PropAuthInit       = "dds.sec.auth.library.init"
	PropAuthFinalize   = "dds.sec.auth.library.finalize"
	PropCryptoPath     = "dds.sec.crypto.library.path"
	PropCryptoInit     = "dds.sec.crypto.library.init"
	PropCryptoFinalize = "dds.sec.crypto.library.finalize"
	PropAccessPath     = "dds.sec.access.library.path"
	PropAccessInit     = "dds.sec.access.library.init"
	PropAccessFinalize = "dds.sec.access.library.finalize"
)

// Properties are the participant QoS properties that enrol a Cyclone participant in e: the six documents as
// file: URIs (absolute paths), the CRL if the enclave has one, and the plugin libraries.
func (e *Enclave) Properties(pl Plugins) []Property {
	ps := []Property{
		{PropIdentityCA, "file:" + e.IdentityCA},
		{PropCert, "file:" + e.Cert},
		{PropKey, "file:" + e.Key},
		{PropPermissionsCA, "file:" + e.PermissionsCA},
		{PropGovernance, "file:" + e.GovernanceFile},
		{PropPermissions, "file:" + e.PermissionsFile},
	}
	if e.CRL != "" {
		ps = append(ps, Property{PropCRL, "file:" + e.CRL})
	}
	return append(ps,
		Property{PropAuthPath, pl.Auth}, Property{PropAuthInit, "init_authentication"}, Property{PropAuthFinalize, "finalize_authentication"},
		Property{PropCryptoPath, pl.Crypto}, Property{PropCryptoInit, "init_crypto"}, Property{PropCryptoFinalize, "finalize_crypto"},
		Property{PropAccessPath, pl.Access}, Property{PropAccessInit, "init_access_control"}, Property{PropAccessFinalize, "finalize_access_control"},
	)
}

// UserData is the participant user data rmw_cyclonedds announces for the enclave ("enclave=/robot;").
func (e *Enclave) UserData() string { return "enclave=" + e.Name + ";" }
