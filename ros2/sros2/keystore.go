package sros2

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rosorin/rosorin/clock"
)

// The files of an enclave directory, as `ros2 security create_enclave` names them.
const (
	FileIdentityCA    = "identity_ca.cert.pem"
	FileCert          = "cert.pem"
	FileKey           = "key.pem"
	FilePermissionsCA = "permissions_ca.cert.pem"
	FileGovernance    = "governance.p7s"
	FilePermissions   = "permissions.p7s"
	FileCRL           = "crl.pem" // optional
)

// Error is a keystore problem: the file it is about and what is wrong with it.
type Error struct {
	File string
	Err  error
}

func (e *Error) Error() string { return "sros2: " + e.File + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ErrExpired is wrapped by errors about certificates or grants outside their validity period.
var ErrExpired = errors.New("outside its validity period")

// Options tune Load. The zero value is ready to use.
type Options struct {
	Clock   clock.Clock // the clock for validity periods; clock.Real{} if nil
	OpenSSL string      // the openssl command; "openssl" on $PATH if empty
}

// Enclave is a checked enclave: its files (absolute paths) and what they say.
type Enclave struct {
	Name, Dir                                 string
	IdentityCA, Cert, Key, PermissionsCA, CRL string // CRL "" if the enclave has none
	GovernanceFile, PermissionsFile           string // the signed documents (.p7s)
	Subject                                   string // the certificate's subject (RFC 2253)
	NotAfter                                  time.Time
	Governance                                *Governance
	Permissions                               *Permissions
	Grant                                     *Grant // the grant for Subject
}

// Load checks enclave (an absolute name, "/robot") in keystore and returns it ready for DDS.
func Load(keystore, enclave string, o Options) (*Enclave, error) {
	clk := o.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	if fi, err := os.Stat(keystore); err != nil || !fi.IsDir() {
		return nil, &Error{keystore, fmt.Errorf("not a keystore directory (%s): make one with `ros2 security create_keystore`", errText(err, "not a directory"))}
	}
	dir, err := filepath.Abs(EnclaveDir(keystore, enclave))
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, &Error{dir, fmt.Errorf("no enclave %q in keystore %s: make it with `ros2 security create_enclave %s %s`", enclave, keystore, keystore, enclave)}
	}
	e := &Enclave{Name: enclave, Dir: dir}
	for _, f := range []struct {
		p    *string
		name string
	}{{&e.IdentityCA, FileIdentityCA}, {&e.Cert, FileCert}, {&e.Key, FileKey}, {&e.PermissionsCA, FilePermissionsCA},
		{&e.GovernanceFile, FileGovernance}, {&e.PermissionsFile, FilePermissions}} {
		*f.p = filepath.Join(dir, f.name)
		if fi, err := os.Stat(*f.p); err != nil || !fi.Mode().IsRegular() {
			return nil, &Error{*f.p, fmt.Errorf("missing (%s): an enclave made by `ros2 security create_enclave` has it", errText(err, "not a regular file"))}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, FileCRL)); err == nil {
		e.CRL = filepath.Join(dir, FileCRL)
	}

	idCA, err := readCert(e.IdentityCA)
	if err != nil {
		return nil, err
	}
	cert, err := readCert(e.Cert)
	if err != nil {
		return nil, err
	}
	t := clk.Now()
	if t.Before(cert.NotBefore) || t.After(cert.NotAfter) {
		return nil, &Error{e.Cert, fmt.Errorf("certificate %q %w (%s to %s, now %s): make a new one with `ros2 security create_enclave`",
			cert.Subject, ErrExpired, cert.NotBefore.UTC().Format(time.RFC3339), cert.NotAfter.UTC().Format(time.RFC3339), t.UTC().Format(time.RFC3339))}
	}
	roots := x509.NewCertPool()
	roots.AddCert(idCA)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: t, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
		return nil, &Error{e.Cert, fmt.Errorf("certificate %q (issuer %q) is not issued by the identity CA %q in %s: %v", cert.Subject, cert.Issuer, idCA.Subject, e.IdentityCA, err)}
	}
	if err := checkAlgorithm(cert); err != nil {
		return nil, &Error{e.Cert, err}
	}
	if err := checkKey(e.Key, cert); err != nil {
		return nil, err
	}
	e.Subject, e.NotAfter = cert.Subject.String(), cert.NotAfter

	permCA, err := readCert(e.PermissionsCA)
	if err != nil {
		return nil, err
	}
	if t.Before(permCA.NotBefore) || t.After(permCA.NotAfter) {
		return nil, &Error{e.PermissionsCA, fmt.Errorf("permissions CA %q %w (until %s)", permCA.Subject, ErrExpired, permCA.NotAfter.UTC().Format(time.RFC3339))}
	}
	gov, err := verifySMIME(o.OpenSSL, e.GovernanceFile, e.PermissionsCA)
	if err != nil {
		return nil, err
	}
	if e.Governance, err = ParseGovernance(gov); err != nil {
		return nil, &Error{e.GovernanceFile, err}
	}
	perm, err := verifySMIME(o.OpenSSL, e.PermissionsFile, e.PermissionsCA)
	if err != nil {
		return nil, err
	}
	if e.Permissions, err = ParsePermissions(perm); err != nil {
		return nil, &Error{e.PermissionsFile, err}
	}
	g := e.Permissions.GrantFor(cert.Subject)
	if g == nil {
		return nil, &Error{e.PermissionsFile, fmt.Errorf("no grant for the certificate's subject %q (%s): the permissions are for another enclave", e.Subject, e.Cert)}
	}
	if nb, na, err := g.Validity.Period(); err != nil {
		return nil, &Error{e.PermissionsFile, fmt.Errorf("grant %q: %v", g.Name, err)}
	} else if t.Before(nb) || t.After(na) {
		return nil, &Error{e.PermissionsFile, fmt.Errorf("grant %q %w (%s to %s)", g.Name, ErrExpired, g.Validity.NotBefore, g.Validity.NotAfter)}
	}
	e.Grant = g
	return e, nil
}

func errText(err error, otherwise string) string {
	if err != nil {
		return err.Error()
	}
	return otherwise
}

// checkAlgorithm: Cyclone 0.10's authentication plugin knows two key kinds, RSA 2048 and ECDSA P-256
// (get_authentication_algo_kind in auth_utils.c); any other fails the participant with "Certificate
// authentication algorithm unknown".
func checkAlgorithm(cert *x509.Certificate) error {
	switch k := cert.PublicKey.(type) {
	case *ecdsa.PublicKey:
		if k.Curve.Params().BitSize == 256 {
			return nil
		}
		return fmt.Errorf("certificate %q has an ECDSA key on %s: Cyclone DDS 0.10 accepts ECDSA P-256 (SROS2's) or RSA 2048 only", cert.Subject, k.Curve.Params().Name)
	case *rsa.PublicKey:
		if k.N.BitLen() == 2048 {
			return nil
		}
		return fmt.Errorf("certificate %q has an RSA key of %d bits: Cyclone DDS 0.10 accepts ECDSA P-256 (SROS2's) or RSA 2048 only", cert.Subject, k.N.BitLen())
	}
	return fmt.Errorf("certificate %q has a %T key: Cyclone DDS 0.10 accepts ECDSA P-256 (SROS2's) or RSA 2048 only", cert.Subject, cert.PublicKey)
}

func readCert(path string) (*x509.Certificate, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{path, err}
	}
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "CERTIFICATE" {
		return nil, &Error{path, errors.New("no PEM CERTIFICATE block")}
	}
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		return nil, &Error{path, err}
	}
	return c, nil
}

// checkKey: the private key in path (PKCS#8 as SROS2 writes it, or SEC 1 / PKCS#1) is cert's.
func checkKey(path string, cert *x509.Certificate) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return &Error{path, err}
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return &Error{path, errors.New("no PEM block")}
	}
	if blk.Headers["Proc-Type"] != "" || blk.Type == "ENCRYPTED PRIVATE KEY" {
		return &Error{path, errors.New("the key is encrypted; Cyclone DDS and SROS2 use an unencrypted key")}
	}
	var key any
	switch blk.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(blk.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(blk.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(blk.Bytes)
	default:
		err = fmt.Errorf("PEM block %q is no private key", blk.Type)
	}
	if err != nil {
		return &Error{path, err}
	}
	var pub crypto.PublicKey
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		pub = k.Public()
	case *rsa.PrivateKey:
		pub = k.Public()
	case ed25519.PrivateKey:
		pub = k.Public()
	default:
		return &Error{path, fmt.Errorf("key type %T not supported", key)}
	}
	eq, ok := pub.(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !eq.Equal(cert.PublicKey) {
		return &Error{path, fmt.Errorf("the key does not belong to the certificate %s (%q)", filepath.Join(filepath.Dir(path), FileCert), cert.Subject)}
	}
	return nil
}
