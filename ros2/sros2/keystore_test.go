package sros2_test

import (
	"crypto/elliptic"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/ros2/sros2"
	"github.com/rosorin/rosorin/ros2/sros2/sros2test"
)

// needOpenSSL skips without the openssl command, unless CI requires it (ROSORIN_REQUIRE_CYCLONE=1 or
// ROSORIN_REQUIRE_OPENSSL=1).
func needOpenSSL(t *testing.T) {
	t.Helper()
	if sros2test.HaveOpenSSL() {
		return
	}
	if os.Getenv("ROSORIN_REQUIRE_CYCLONE") == "1" || os.Getenv("ROSORIN_REQUIRE_OPENSSL") == "1" {
		t.Fatal("openssl is required (ROSORIN_REQUIRE_CYCLONE=1) but not on $PATH: apt-get install openssl")
	}
	t.Skip("openssl not on $PATH: the keystore tests sign and check S/MIME with it (apt-get install openssl)")
}

func TestFromEnv(t *testing.T) {
	for _, c := range []struct {
		name    string
		env     map[string]string
		arg     string
		want    sros2.Settings
		wantErr string
	}{
		{"nothing", nil, "", sros2.Settings{Enclave: "/"}, ""},
		{"enabled", map[string]string{"ROS_SECURITY_ENABLE": "true", "ROS_SECURITY_KEYSTORE": "/k"}, "",
			sros2.Settings{Enable: true, Keystore: "/k", Enclave: "/"}, ""},
		{"enforce and --enclave", map[string]string{"ROS_SECURITY_ENABLE": "true", "ROS_SECURITY_KEYSTORE": "/k", "ROS_SECURITY_STRATEGY": "Enforce"}, "/robot",
			sros2.Settings{Enable: true, Strategy: sros2.Enforce, Keystore: "/k", Enclave: "/robot"}, ""},
		{"override wins over --enclave", map[string]string{"ROS_SECURITY_ENCLAVE_OVERRIDE": "/other"}, "/robot",
			sros2.Settings{Enclave: "/other"}, ""},
		{"empty override is no override", map[string]string{"ROS_SECURITY_ENCLAVE_OVERRIDE": ""}, "/robot",
			sros2.Settings{Enclave: "/robot"}, ""},
		{"explicit false", map[string]string{"ROS_SECURITY_ENABLE": "false", "ROS_SECURITY_STRATEGY": "Permissive"}, "",
			sros2.Settings{Enclave: "/"}, ""},
		{"True is not true", map[string]string{"ROS_SECURITY_ENABLE": "True"}, "", sros2.Settings{}, `ROS_SECURITY_ENABLE="True"`},
		{"enforce lower case", map[string]string{"ROS_SECURITY_STRATEGY": "enforce"}, "", sros2.Settings{}, `ROS_SECURITY_STRATEGY="enforce"`},
		{"enabled without keystore", map[string]string{"ROS_SECURITY_ENABLE": "true"}, "", sros2.Settings{}, "ROS_SECURITY_KEYSTORE is not set"},
		{"relative enclave", nil, "robot", sros2.Settings{}, "not absolute"},
		{"dot-dot enclave", nil, "/a/../../etc", sros2.Settings{}, `".."`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := sros2.FromEnv(func(k string) string { return c.env[k] }, c.arg)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want one with %q", err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

func TestEnclaveDir(t *testing.T) {
	for enclave, want := range map[string]string{"/": "/k/enclaves", "/robot": "/k/enclaves/robot", "/a/b": "/k/enclaves/a/b"} {
		if got := sros2.EnclaveDir("/k", enclave); got != want {
			t.Errorf("EnclaveDir(/k, %s) = %s, want %s", enclave, got, want)
		}
	}
}

var robotPolicy = sros2test.Policy{Domain: 0, Publish: []string{"rt/imu/data_raw", "rt/ros_discovery_info"}, Subscribe: []string{"rt/cmd_vel", "rt/estop"}}

// TestLoad: an enclave made as `ros2 security create_enclave` makes it loads, and yields Cyclone's properties
// with absolute file: URIs of the enclave's own files.
func TestLoad(t *testing.T) {
	needOpenSSL(t)
	ks, err := sros2test.Create(t.TempDir(), sros2test.GovernanceXML(sros2test.SROS2Default))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := ks.Enclave("/robot/base", robotPolicy, sros2test.EnclaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := sros2.Load(ks.Dir, "/robot/base", sros2.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dir != dir || e.Subject != "CN=/robot/base" || e.Grant == nil || e.Grant.Name != "/robot/base" {
		t.Errorf("enclave %+v", e)
	}
	if k := e.Governance.DomainRules[0].TopicRules[0].DataProtectionKind; k != "ENCRYPT" {
		t.Errorf("governance data protection %q", k)
	}
	if e.UserData() != "enclave=/robot/base;" {
		t.Errorf("user data %q", e.UserData())
	}
	props := map[string]string{}
	for _, p := range e.Properties(sros2.Plugins{Auth: "A", Access: "B", Crypto: "C"}) {
		props[p.Name] = p.Value
	}
	want := map[string]string{
		"dds.sec.auth.identity_ca":          "file:" + filepath.Join(dir, "identity_ca.cert.pem"),
		"dds.sec.auth.identity_certificate": "file:" + filepath.Join(dir, "cert.pem"),
		"dds.sec.auth.private_key":          "file:" + filepath.Join(dir, "key.pem"),
		"dds.sec.access.permissions_ca":     "file:" + filepath.Join(dir, "permissions_ca.cert.pem"),
		"dds.sec.access.governance":         "file:" + filepath.Join(dir, "governance.p7s"),
		"dds.sec.access.permissions":        "file:" + filepath.Join(dir, "permissions.p7s"),
		"dds.sec.auth.library.path":         "A", "dds.sec.auth.library.init": "init_authentication", "dds.sec.auth.library.finalize": "finalize_authentication",
		"dds.sec.access.library.path": "B", "dds.sec.access.library.init": "init_access_control", "dds.sec.access.library.finalize": "finalize_access_control",
		"dds.sec.crypto.library.path": "C", "dds.sec.crypto.library.init": "init_crypto", "dds.sec.crypto.library.finalize": "finalize_crypto",
	}
	if len(props) != len(want) {
		t.Errorf("%d properties, want %d: %v", len(props), len(want), props)
	}
	for k, v := range want {
		if props[k] != v {
			t.Errorf("%s = %q, want %q", k, props[k], v)
		}
	}
}

// TestLoadRejects: each broken keystore is refused with an error that names the broken file.
func TestLoadRejects(t *testing.T) {
	needOpenSSL(t)
	now := time.Now()
	foreign, err := sros2test.NewCA("sros2CA", now.Add(-time.Hour), now.AddDate(1, 0, 0)) // same name, other key
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		opt   sros2test.EnclaveOptions
		gov   []byte                         // governance, default SROS2's
		after func(t *testing.T, dir string) // breaks the made enclave
		file  string                         // the file the error must name
		is    error                          // and wrap, if not nil
		text  string
	}{
		{name: "expired certificate", opt: sros2test.EnclaveOptions{NotBefore: now.AddDate(-2, 0, 0), NotAfter: now.AddDate(0, 0, -1)},
			file: "cert.pem", is: sros2.ErrExpired},
		{name: "certificate not yet valid", opt: sros2test.EnclaveOptions{NotBefore: now.Add(time.Hour), NotAfter: now.AddDate(1, 0, 0)},
			file: "cert.pem", is: sros2.ErrExpired},
		{name: "certificate with a P-384 key", opt: sros2test.EnclaveOptions{Curve: elliptic.P384()}, file: "cert.pem", text: "P-256"},
		{name: "certificate of a foreign CA", opt: sros2test.EnclaveOptions{Issuer: foreign}, file: "cert.pem", text: "not issued by the identity CA"},
		{name: "key of another certificate", after: func(t *testing.T, dir string) {
			_, key, err := foreign.Issue("/robot", now.Add(-time.Hour), now.AddDate(1, 0, 0))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, "key.pem"), key, 0o600)
		}, file: "key.pem", text: "does not belong"},
		{name: "permissions signed by a foreign CA", opt: sros2test.EnclaveOptions{PermissionsSigner: foreign}, file: "permissions.p7s", is: sros2.ErrSignature},
		{name: "permissions unsigned", opt: sros2test.EnclaveOptions{Unsigned: true}, file: "permissions.p7s", is: sros2.ErrSignature},
		{name: "permissions changed after signing", after: func(t *testing.T, dir string) {
			p := filepath.Join(dir, "permissions.p7s")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(b), "rt/imu/data_raw", "rt/cmd_vel", 1)), 0o644)
		}, file: "permissions.p7s", is: sros2.ErrSignature},
		{name: "permissions that do not parse", opt: sros2test.EnclaveOptions{Permissions: []byte("<dds><permissions><grant>")},
			file: "permissions.p7s", text: "do not parse"},
		{name: "permissions for another subject", opt: sros2test.EnclaveOptions{Permissions: sros2test.PermissionsXML("/intruder", robotPolicy, now.Add(-time.Hour), now.AddDate(1, 0, 0))},
			file: "permissions.p7s", text: "no grant for the certificate's subject"},
		{name: "expired grant", opt: sros2test.EnclaveOptions{Permissions: sros2test.PermissionsXML("/robot", robotPolicy, now.AddDate(-2, 0, 0), now.AddDate(0, 0, -1))},
			file: "permissions.p7s", is: sros2.ErrExpired},
		{name: "governance that does not parse", gov: []byte("<dds><domain_access_rules><domain_rule></dds>"), file: "governance.p7s", text: "governance does not parse"},
		{name: "governance with an unknown protection kind", gov: []byte(strings.Replace(string(sros2test.GovernanceXML(sros2test.SROS2Default)), "<rtps_protection_kind>SIGN", "<rtps_protection_kind>SIGNED", 1)),
			file: "governance.p7s", text: `rtps_protection_kind "SIGNED"`},
		{name: "governance signed by a foreign CA", after: func(t *testing.T, dir string) {
			p := filepath.Join(dir, "..", "governance.p7s")
			if err := sros2test.Sign(sros2test.GovernanceXML(sros2test.SROS2Default), foreign, p); err != nil {
				t.Fatal(err)
			}
		}, file: "governance.p7s", is: sros2.ErrSignature},
		{name: "missing permissions", after: func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "permissions.p7s")) },
			file: "permissions.p7s", text: "missing"},
		{name: "dangling CA link", after: func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "..", "..", "public", "ca.cert.pem")) },
			file: "identity_ca.cert.pem", text: "missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			gov := c.gov
			if gov == nil {
				gov = sros2test.GovernanceXML(sros2test.SROS2Default)
			}
			ks, err := sros2test.Create(t.TempDir(), gov)
			if err != nil {
				t.Fatal(err)
			}
			dir, err := ks.Enclave("/robot", robotPolicy, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if c.after != nil {
				c.after(t, dir)
			}
			_, err = sros2.Load(ks.Dir, "/robot", sros2.Options{})
			if err == nil {
				t.Fatal("loaded; want an error")
			}
			t.Log(err)
			var se *sros2.Error
			if !errors.As(err, &se) || filepath.Base(se.File) != c.file {
				t.Errorf("error %v does not name %s", err, c.file)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v is not %v", err, c.is)
			}
			if c.text != "" && !strings.Contains(err.Error(), c.text) {
				t.Errorf("error %v does not say %q", err, c.text)
			}
		})
	}
}

// TestLoadNoEnclave: an enclave the keystore lacks, and a keystore that is not there, say so and how to make it.
func TestLoadNoEnclave(t *testing.T) {
	needOpenSSL(t)
	ks, err := sros2test.Create(t.TempDir(), sros2test.GovernanceXML(sros2test.SROS2Default))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sros2.Load(ks.Dir, "/robot", sros2.Options{}); err == nil || !strings.Contains(err.Error(), "create_enclave") {
		t.Errorf("err %v", err)
	}
	if _, err := sros2.Load(filepath.Join(ks.Dir, "nope"), "/robot", sros2.Options{}); err == nil || !strings.Contains(err.Error(), "create_keystore") {
		t.Errorf("err %v", err)
	}
}

// TestLoadNoOpenSSL: without the openssl command the signatures cannot be checked, and Load says so.
func TestLoadNoOpenSSL(t *testing.T) {
	needOpenSSL(t)
	ks, err := sros2test.Create(t.TempDir(), sros2test.GovernanceXML(sros2test.SignOnly))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ks.Enclave("/robot", robotPolicy, sros2test.EnclaveOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = sros2.Load(ks.Dir, "/robot", sros2.Options{OpenSSL: filepath.Join(t.TempDir(), "openssl")})
	if !errors.Is(err, sros2.ErrNoOpenSSL) || !strings.Contains(err.Error(), "apt-get install openssl") {
		t.Errorf("err %v", err)
	}
}

// TestLoadClock: the injected clock decides validity (a certificate valid today is expired in eleven years).
func TestLoadClock(t *testing.T) {
	needOpenSSL(t)
	ks, err := sros2test.Create(t.TempDir(), sros2test.GovernanceXML(sros2test.SROS2Default))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ks.Enclave("/robot", robotPolicy, sros2test.EnclaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := sros2.Load(ks.Dir, "/robot", sros2.Options{Clock: laterClock{}}); !errors.Is(err, sros2.ErrExpired) {
		t.Errorf("err %v, want expired", err)
	}
}

// laterClock is the real clock eleven years on.
type laterClock struct{ clock.Real }

func (laterClock) Now() time.Time { return time.Now().AddDate(11, 0, 0) }

// TestCheckDomain: the governance (0-230) and the grant (domain 0 here) decide which ROS_DOMAIN_ID the enclave
// may join.
func TestCheckDomain(t *testing.T) {
	needOpenSSL(t)
	ks, err := sros2test.Create(t.TempDir(), sros2test.GovernanceXML(sros2test.SROS2Default))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ks.Enclave("/robot", robotPolicy, sros2test.EnclaveOptions{}); err != nil {
		t.Fatal(err)
	}
	e, err := sros2.Load(ks.Dir, "/robot", sros2.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.CheckDomain(0); err != nil {
		t.Errorf("domain 0: %v", err)
	}
	var se *sros2.Error
	if err := e.CheckDomain(7); !errors.As(err, &se) || filepath.Base(se.File) != "permissions.p7s" {
		t.Errorf("domain 7: %v, want the grant named", err)
	}
	if err := e.CheckDomain(231); !errors.As(err, &se) || filepath.Base(se.File) != "governance.p7s" {
		t.Errorf("domain 231: %v, want the governance named", err)
	}
}
