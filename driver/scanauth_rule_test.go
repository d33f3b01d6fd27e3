package driver

import (
	"strings"
	"testing"

	"github.com/rosorin/rosorin/driver/api"
)

// TestScanSenderRule: the rule on the peer's kernel credentials, as a table.
func TestScanSenderRule(t *testing.T) {
	const sup, uid = 812, 999
	for _, c := range []struct {
		name string
		sup  int
		p    api.Peer
		ok   bool
	}{
		{"no supervisor: anyone", 0, api.Peer{PID: 77, PPID: 1, Comm: "curl"}, true},
		{"no supervisor: unknown peer", 0, api.Peer{}, true},
		{"the supervisor's reader", sup, api.Peer{PID: 900, PPID: sup, Comm: api.ReaderComm, UID: uid}, true},
		{"a child of the supervisor under its own user, named like the reader (the bridge)", sup, api.Peer{PID: 904, PPID: sup, Comm: api.ReaderComm, UID: uid + 1}, false},
		{"root, named like the reader, child of the supervisor", sup, api.Peer{PID: 905, PPID: sup, Comm: api.ReaderComm, UID: 0}, false},
		{"the supervisor's driver", sup, api.Peer{PID: 901, PPID: sup, Comm: "rosorin-driver"}, false},
		{"a reader's name, another parent", sup, api.Peer{PID: 902, PPID: 1, Comm: api.ReaderComm}, false},
		{"a grandchild named like the reader", sup, api.Peer{PID: 903, PPID: 900, Comm: api.ReaderComm}, false},
		{"credentials unknown", sup, api.Peer{}, false},
		{"the supervisor itself", sup, api.Peer{PID: sup, PPID: 1, Comm: "rosorin-base"}, false},
	} {
		if c.p.PID != 0 && c.p.UID == 0 && c.name != "root, named like the reader, child of the supervisor" {
			c.p.UID = uid
		}
		err := scanSender(c.p, c.sup, uid)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v, want allowed %v", c.name, err, c.ok)
		}
		if err != nil && (!strings.Contains(err.Error(), "scan gate") || !strings.Contains(err.Error(), c.p.String())) {
			t.Errorf("%s: message %q does not say who was refused and why", c.name, err)
		}
	}
}
