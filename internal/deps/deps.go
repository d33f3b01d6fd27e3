//go:build tools

// Package deps pins the module's third-party dependencies while the packages that use them are written.
package deps

import (
	_ "github.com/creack/pty"
	_ "github.com/olekukonko/tablewriter"
	_ "github.com/urfave/cli/v2"
	_ "go.bug.st/serial"
	_ "golang.org/x/sys/unix"
	_ "gonum.org/v1/gonum/stat"
	_ "gopkg.in/yaml.v3"
)
