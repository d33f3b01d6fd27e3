package sros2

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// ErrNoOpenSSL is wrapped when the openssl command is needed and missing.
var ErrNoOpenSSL = errors.New("the openssl command is needed to check the S/MIME signatures of governance.p7s and permissions.p7s and is not installed: apt-get install openssl")

// ErrSignature is wrapped when a signed document is not signed by the permissions CA.
var ErrSignature = errors.New("not signed by the permissions CA")

// verifySMIME checks that file is an S/MIME document signed by the certificate in caFile and returns the signed
// content, as Cyclone's access-control plugin does (SMIME_read_PKCS7, then PKCS7_verify in text mode with caFile
// as the only trusted certificate).
func verifySMIME(openssl, file, caFile string) ([]byte, error) {
	if openssl == "" {
		openssl = "openssl"
	}
	path, err := exec.LookPath(openssl)
	if err != nil {
		return nil, &Error{file, fmt.Errorf("%w (%v)", ErrNoOpenSSL, err)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, "smime", "-verify", "-text", "-in", file, "-CAfile", caFile)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		why := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(why, '\n'); i > 0 && len(why) > 400 {
			why = why[:i]
		}
		why = strings.ReplaceAll(why, "\n", "; ")
		return nil, &Error{file, fmt.Errorf("%w %s (openssl smime -verify: %v: %s)", ErrSignature, caFile, err, why)}
	}
	return out.Bytes(), nil
}
