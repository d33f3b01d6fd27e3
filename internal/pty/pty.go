package pty

import "os"

// PTY is a pseudo-terminal whose slave is published at Link.
type PTY struct {
	Link      string   // the published path
	SlaveName string   // /dev/pts/N
	Master    *os.File // what the client writes is read here; what is written here the client reads

	native // the platform's part
}
