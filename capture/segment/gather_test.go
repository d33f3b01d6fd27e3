package segment

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// TestQueueGathers (virtual time): 100 messages Put 1 ms apart reach the disk in order, each within Gather of
// its Put, in a handful of batches (one writer wake-up each), not one per message; without gathering (the
// control) every message is a batch of its own.
func TestQueueGathers(t *testing.T) {
	for _, tc := range []struct {
		gather     time.Duration
		maxBatches int
	}{
		{0, 100/20 + 2}, // DefaultGather: a batch per 20 ms, and the first message alone
		{-1, 100},
	} {
		t.Run(fmt.Sprint("gather=", tc.gather), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				disk := &clockDisk{}
				q := StartQueue(QueueOptions{Gather: tc.gather, open: func() (segmentWriter, error) { return disk, nil }})
				puts := make([]time.Time, 100)
				for i := range puts {
					puts[i] = time.Now()
					q.Put(0, puts[i], []byte{byte(i)})
					time.Sleep(time.Millisecond)
				}
				if err := q.Close(); err != nil {
					t.Fatal(err)
				}
				if len(disk.data) != len(puts) {
					t.Fatalf("%d messages written, want %d", len(disk.data), len(puts))
				}
				batches := 0
				for i, d := range disk.data {
					if d != byte(i) {
						t.Fatalf("message %d written as %d: out of order", i, d)
					}
					if late := disk.at[i].Sub(puts[i]); late > DefaultGather {
						t.Errorf("message %d written %v after its Put, want at most %v", i, late, DefaultGather)
					}
					if i == 0 || !disk.at[i].Equal(disk.at[i-1]) {
						batches++
					}
				}
				t.Logf("gather %v: 100 messages 1 ms apart written in %d batches", tc.gather, batches)
				if tc.gather >= 0 && batches > tc.maxBatches {
					t.Fatalf("%d batches, want at most %d", batches, tc.maxBatches)
				}
				if tc.gather < 0 && batches != tc.maxBatches {
					t.Fatalf("without gathering: %d batches, want one per message", batches)
				}
			})
		})
	}
}

// clockDisk records each raw write's payload and the (virtual) time it was written.
type clockDisk struct {
	mu   sync.Mutex
	data []byte
	at   []time.Time
}

func (d *clockDisk) Write(ch int, t time.Time, data []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.data = append(d.data, data[0])
	d.at = append(d.at, time.Now())
	return nil
}
func (d *clockDisk) WriteMessage(int, time.Time, rosmsg.Message) error { return nil }
func (d *clockDisk) Stats() SegmentStats                               { return SegmentStats{Current: "x.mcap"} }
func (d *clockDisk) Close() error                                      { return nil }
