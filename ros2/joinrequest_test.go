package ros2

import (
	"bytes"
	"testing"

	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// TestJoinRequest: what Call and Reply send is the wire form TestSplitRequest reads (encapsulation, the
// 16-byte header, the body), and SplitRequest takes it apart again.
func TestJoinRequest(t *testing.T) {
	var hdr [RequestHeaderLen]byte
	copy(hdr[:], []byte{1, 2, 3, 4, 5, 6, 7, 8, 9})
	b := joinRequest(hdr, &rosmsg.SetBoolRequest{Data: true})
	want := append(append([]byte{0, 1, 0, 0}, hdr[:]...), 1)
	if !bytes.Equal(b, want) {
		t.Fatalf("joinRequest = %x, want %x", b, want)
	}
	h, body, err := SplitRequest(b)
	var m rosmsg.SetBoolRequest
	if err != nil || h != hdr || cdr.Unmarshal(body, &m) != nil || !m.Data {
		t.Fatalf("SplitRequest(joinRequest) = %x, %x, %v (%+v)", h, body, err, m)
	}
}
