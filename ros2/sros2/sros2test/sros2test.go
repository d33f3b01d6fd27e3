// Package sros2test makes SROS2 keystores for tests, in the layout and shapes `ros2 security create_keystore`
// and `create_enclave` write: one ECDSA P-256 CA ("sros2CA", basic constraints only) serving as identity and
// permissions CA, public/ and private/ with the three names of each, enclaves/governance.xml and .p7s,
// and per enclave cert.pem (CN=<enclave>), key.pem (PKCS#8), links to the CA certificates and governance, and
// permissions.xml/.p7s. Certificates are made with crypto/x509, as SROS2 makes them with Python's cryptography;
// documents are signed with `openssl smime -sign -text` (detached, text/plain: SROS2's S/MIME shape).
//
// The knobs make the bad keystores the negative tests need: expired or foreign certificates, documents signed
// by another CA or not at all, broken XML.
package sros2test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	"github.com/rosorin/rosorin/clock"
)

// CA is a certificate authority: its certificate and key.
type CA struct {
	Cert    *x509.Certificate
	Key     *ecdsa.PrivateKey
	CertPEM []byte
	KeyPEM  []byte // PKCS#8
}

// NewCA makes a self-signed CA valid from notBefore to notAfter, as SROS2's _build_key_and_cert(ca=True).
func NewCA(cn string, notBefore, notAfter time.Time) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: cn}, NotBefore: notBefore, NotAfter: notAfter,
		BasicConstraintsValid: true, IsCA: true, MaxPathLen: 1,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, _ := x509.ParseCertificate(der)
	kp, err := keyPEM(key)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, Key: key, CertPEM: certPEM(der), KeyPEM: kp}, nil
}

// Issue makes a key and a leaf certificate for subject cn signed by ca, as SROS2's create_enclave does
// (ECDSA P-256).
func (ca *CA) Issue(cn string, notBefore, notAfter time.Time) (certPEMBytes, keyPEMBytes []byte, err error) {
	return ca.issue(cn, notBefore, notAfter, elliptic.P256())
}

func (ca *CA) issue(cn string, notBefore, notAfter time.Time, curve elliptic.Curve) (certPEMBytes, keyPEMBytes []byte, err error) {
	key, err := ecdsa.GenerateKey(curve, rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: cn}, NotBefore: notBefore, NotAfter: notAfter,
		BasicConstraintsValid: true, IsCA: false,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		return nil, nil, err
	}
	kp, err := keyPEM(key)
	return certPEM(der), kp, err
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	return n
}

func certPEM(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func keyPEM(k *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// Sign writes doc to out as S/MIME signed by ca, with openssl (`openssl smime -sign -text`, detached).
func Sign(doc []byte, ca *CA, out string) error {
	tmp, err := os.MkdirTemp("", "sros2test-sign")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	in, cert, key := filepath.Join(tmp, "doc.xml"), filepath.Join(tmp, "ca.cert.pem"), filepath.Join(tmp, "ca.key.pem")
	for p, b := range map[string][]byte{in: doc, cert: ca.CertPEM, key: ca.KeyPEM} {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			return err
		}
	}
	cmd := exec.Command("openssl", "smime", "-sign", "-text", "-in", in, "-signer", cert, "-inkey", key, "-out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("openssl smime -sign: %v: %s", err, bytes.TrimSpace(b))
	}
	return nil
}

// HaveOpenSSL reports whether the openssl command is on $PATH.
func HaveOpenSSL() bool { _, err := exec.LookPath("openssl"); return err == nil }

// Protection is a governance's protection of discovery, liveliness, RTPS messages, metadata and data.
type Protection struct{ Discovery, Liveliness, RTPS, Metadata, Data string }

var (
	// SROS2Default is SROS2's default governance (create_keystore): discovery and liveliness ENCRYPT, RTPS SIGN,
	// topics' metadata and data ENCRYPT.
	SROS2Default = Protection{"ENCRYPT", "ENCRYPT", "SIGN", "ENCRYPT", "ENCRYPT"}
	// SignOnly signs everything and encrypts nothing.
	SignOnly = Protection{"SIGN", "SIGN", "SIGN", "SIGN", "SIGN"}
)

var govTmpl = template.Must(template.New("g").Parse(`<?xml version="1.0" encoding="UTF-8"?>
<dds xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="http://www.omg.org/spec/DDS-SECURITY/20170901/omg_shared_ca_governance.xsd">
  <domain_access_rules>
    <domain_rule>
      <domains>
        <id_range>
          <min>0</min>
          <max>230</max>
        </id_range>
      </domains>
      <allow_unauthenticated_participants>false</allow_unauthenticated_participants>
      <enable_join_access_control>true</enable_join_access_control>
      <discovery_protection_kind>{{.Discovery}}</discovery_protection_kind>
      <liveliness_protection_kind>{{.Liveliness}}</liveliness_protection_kind>
      <rtps_protection_kind>{{.RTPS}}</rtps_protection_kind>
      <topic_access_rules>
        <topic_rule>
          <topic_expression>*</topic_expression>
          <enable_discovery_protection>true</enable_discovery_protection>
          <enable_liveliness_protection>true</enable_liveliness_protection>
          <enable_read_access_control>true</enable_read_access_control>
          <enable_write_access_control>true</enable_write_access_control>
          <metadata_protection_kind>{{.Metadata}}</metadata_protection_kind>
          <data_protection_kind>{{.Data}}</data_protection_kind>
        </topic_rule>
      </topic_access_rules>
    </domain_rule>
  </domain_access_rules>
</dds>
`))

// GovernanceXML is a governance document in SROS2's shape (domains 0-230, join access control, read and write
// access control on every topic) with the protection p.
func GovernanceXML(p Protection) []byte {
	var b bytes.Buffer
	if err := govTmpl.Execute(&b, p); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// Policy is what one enclave may do: DDS topic names ("rt/chatter", "rq/...Request", or fnmatch patterns such
// as "rt/*") it may publish and subscribe, in one domain.
type Policy struct {
	Domain             int
	Publish, Subscribe []string
	DenyPublish        []string // a deny_rule, before the allow_rule, as SROS2 orders them
}

var permTmpl = template.Must(template.New("p").Parse(`<?xml version="1.0" encoding="UTF-8"?>
<dds xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="http://www.omg.org/spec/DDS-SECURITY/20170901/omg_shared_ca_permissions.xsd">
  <permissions>
    <grant name="{{.Name}}">
      <subject_name>CN={{.Name}}</subject_name>
      <validity>
        <not_before>{{.NotBefore}}</not_before>
        <not_after>{{.NotAfter}}</not_after>
      </validity>
{{- if .P.DenyPublish}}
      <deny_rule>
        <domains>
          <id>{{.P.Domain}}</id>
        </domains>
        <publish>
          <topics>
{{- range .P.DenyPublish}}
            <topic>{{.}}</topic>
{{- end}}
          </topics>
        </publish>
      </deny_rule>
{{- end}}
      <allow_rule>
        <domains>
          <id>{{.P.Domain}}</id>
        </domains>
{{- if .P.Publish}}
        <publish>
          <topics>
{{- range .P.Publish}}
            <topic>{{.}}</topic>
{{- end}}
          </topics>
        </publish>
{{- end}}
{{- if .P.Subscribe}}
        <subscribe>
          <topics>
{{- range .P.Subscribe}}
            <topic>{{.}}</topic>
{{- end}}
          </topics>
        </subscribe>
{{- end}}
      </allow_rule>
      <default>DENY</default>
    </grant>
  </permissions>
</dds>
`))

// PermissionsXML is a permissions document in SROS2's shape for enclave name, valid from notBefore to notAfter.
func PermissionsXML(name string, p Policy, notBefore, notAfter time.Time) []byte {
	var b bytes.Buffer
	const layout = "2006-01-02T15:04:05"
	if err := permTmpl.Execute(&b, map[string]any{"Name": name, "P": p,
		"NotBefore": notBefore.UTC().Format(layout), "NotAfter": notAfter.UTC().Format(layout)}); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// Keystore is a keystore made on disk.
type Keystore struct {
	Dir string
	CA  *CA // identity and permissions CA (SROS2's default keystore has one CA for both)
}

// Create makes a keystore in dir (which must not exist or be empty) with governance gov (GovernanceXML).
func Create(dir string, gov []byte) (*Keystore, error) {
	now := clock.Real{}.Now() // openssl and DDS check the CA's period against the wall clock
	ca, err := NewCA("sros2CA", now.Add(-time.Hour), now.AddDate(10, 0, 0))
	if err != nil {
		return nil, err
	}
	k := &Keystore{Dir: dir, CA: ca}
	for _, d := range []string{"public", "private", "enclaves"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "public", "ca.cert.pem"), ca.CertPEM, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "private", "ca.key.pem"), ca.KeyPEM, 0o600); err != nil {
		return nil, err
	}
	for _, n := range []string{"identity_ca", "permissions_ca"} {
		if err := os.Symlink("ca.cert.pem", filepath.Join(dir, "public", n+".cert.pem")); err != nil {
			return nil, err
		}
		if err := os.Symlink("ca.key.pem", filepath.Join(dir, "private", n+".key.pem")); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "enclaves", "governance.xml"), gov, 0o644); err != nil {
		return nil, err
	}
	if err := Sign(gov, ca, filepath.Join(dir, "enclaves", "governance.p7s")); err != nil {
		return nil, err
	}
	return k, nil
}

// EnclaveOptions vary an enclave from what create_enclave makes. The zero value is SROS2's.
type EnclaveOptions struct {
	NotBefore, NotAfter time.Time      // the certificate's period; default one hour ago to ten years on
	Issuer              *CA            // who signs the certificate; default the keystore's CA
	PermissionsSigner   *CA            // who signs permissions.p7s; default the keystore's CA
	Permissions         []byte         // permissions.xml as is; default PermissionsXML(name, Policy, ...)
	Unsigned            bool           // permissions.p7s is the bare XML, not S/MIME
	Curve               elliptic.Curve // the enclave key's curve; default P-256 (SROS2's)
	Clock               clock.Clock    // what "now" is for the default period; clock.Real{} if nil
}

// Enclave makes enclave name ("/robot") with policy p, returns its directory.
func (k *Keystore) Enclave(name string, p Policy, o EnclaveOptions) (string, error) {
	if !strings.HasPrefix(name, "/") || name == "/" {
		return "", errors.New("sros2test: enclave names here are absolute and not the root")
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	now := o.Clock.Now()
	if o.NotBefore.IsZero() {
		o.NotBefore = now.Add(-time.Hour)
	}
	if o.NotAfter.IsZero() {
		o.NotAfter = now.AddDate(10, 0, 0)
	}
	if o.Issuer == nil {
		o.Issuer = k.CA
	}
	if o.PermissionsSigner == nil {
		o.PermissionsSigner = k.CA
	}
	dir := filepath.Join(k.Dir, "enclaves", filepath.FromSlash(name[1:]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if o.Curve == nil {
		o.Curve = elliptic.P256()
	}
	cert, key, err := o.Issuer.issue(name, o.NotBefore, o.NotAfter, o.Curve)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "cert.pem"), cert, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "key.pem"), key, 0o600); err != nil {
		return "", err
	}
	// Relative links, as SROS2's create_symlink makes them.
	pub, _ := filepath.Rel(dir, filepath.Join(k.Dir, "public"))
	encl, _ := filepath.Rel(dir, filepath.Join(k.Dir, "enclaves"))
	for link, target := range map[string]string{
		"identity_ca.cert.pem":    filepath.Join(pub, "identity_ca.cert.pem"),
		"permissions_ca.cert.pem": filepath.Join(pub, "permissions_ca.cert.pem"),
		"governance.p7s":          filepath.Join(encl, "governance.p7s"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			return "", err
		}
	}
	perm := o.Permissions
	if perm == nil {
		perm = PermissionsXML(name, p, now.Add(-time.Hour), now.AddDate(10, 0, 0))
	}
	if err := os.WriteFile(filepath.Join(dir, "permissions.xml"), perm, 0o644); err != nil {
		return "", err
	}
	if o.Unsigned {
		return dir, os.WriteFile(filepath.Join(dir, "permissions.p7s"), perm, 0o644)
	}
	return dir, Sign(perm, o.PermissionsSigner, filepath.Join(dir, "permissions.p7s"))
}
