package replay_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/live"
	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/internal/testkit/mcaptest"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/replay"
	"github.com/rosorin/rosorin/serialport"
	"github.com/rosorin/rosorin/sim"
)

// TestMain also fails the package when a goroutine outlives its tests: every replay, tap and recorder a test
// starts must have stopped.
func TestMain(m *testing.M) {
	release := testkit.RealTimeAlone()
	code := m.Run()
	release()
	testkit.Cleanup()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// recordSim records the sim's board and LiDAR (rx, passive) into one capture for d, with the decoded
// channels, and returns the file and the battery reports and IMU z accelerations it held.
func recordSim(t *testing.T, d time.Duration) (string, map[int]bool, []float32) {
	t.Helper()
	dir := t.TempDir()
	s, err := sim.Start(context.Background(), sim.Config{Dir: dir, World: "stand", Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	path := filepath.Join(t.TempDir(), "sim.mcap")
	rec, err := mcapfile.Create(path, mcapfile.Options{Metadata: map[string]string{"recorder": "replay test", "baud": "1000000"}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	batteries := map[int]bool{}
	var accZ []float32
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for _, dev := range []struct {
		path string
		kind capture.Kind
		baud int
	}{{s.BoardPath(), capture.Board, sim.BoardBaud}, {s.LidarPath(), capture.Lidar, sim.LidarBaud}} {
		f, err := serialport.Open(dev.path, serialport.Options{Baud: dev.baud, ReadOnly: true, Listen: true, KeepInput: true})
		if err != nil {
			t.Fatal(err)
		}
		ch, err := rec.RawChannel(capture.RawTopic(dev.kind, capture.FromDevice), string(dev.kind))
		if err != nil {
			t.Fatal(err)
		}
		var p board.Parser
		wg.Add(1)
		go func(f *os.File, kind capture.Kind) {
			defer wg.Done()
			defer f.Close()
			buf := make([]byte, 4096)
			for ctx.Err() == nil {
				_ = f.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
				n, _ := f.Read(buf)
				if n == 0 {
					continue
				}
				if err := rec.Write(ch, time.Now(), buf[:n]); err != nil {
					t.Error(err)
					return
				}
				if kind == capture.Board {
					p.Feed(buf[:n], func(fr board.Frame) {
						v, err := board.Decode(fr)
						mu.Lock()
						defer mu.Unlock()
						switch v := v.(type) {
						case board.Battery:
							batteries[int(v.MilliVolts)] = true
						case board.IMU:
							if err == nil {
								accZ = append(accZ, v.Accel[2])
							}
						}
					})
				}
			}
		}(f, dev.kind)
	}
	wg.Wait()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return path, batteries, accZ
}

// TestReplayIntoRosorinBase: a recording of the sim, the sim gone, replayed in a loop into a real
// `rosorin-base run`: the driver's state shows a battery voltage the recording held and the IMU rate, its
// IMU topic carries recorded accelerations, the LiDAR reader delivers scans, and what the driver wrote to
// the board is recorded and compared.
func TestReplayIntoRosorinBase(t *testing.T) {
	bin, err := testkit.Binary("./cmd/rosorin-base")
	if err != nil {
		t.Fatal(err)
	}
	file, batteries, accZ := recordSim(t, 2500*time.Millisecond)
	if len(batteries) == 0 || len(accZ) < 100 {
		t.Fatalf("the sim recording holds %d battery values and %d IMU frames", len(batteries), len(accZ))
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	devs := make(chan map[string]string, 1)
	type result struct {
		res *replay.Result
		err error
	}
	done := make(chan result, 1)
	out := filepath.Join(dir, "driver.mcap")
	go func() {
		r, err := replay.Run(ctx, replay.Options{File: file, Dir: filepath.Join(dir, "dev"), Loop: true, Out: out, Compare: true,
			Ready: func(d map[string]string) { devs <- d }})
		done <- result{r, err}
	}()
	var d map[string]string
	select {
	case d = <-devs:
	case r := <-done:
		t.Fatalf("replay ended before its ptys: %v", r.err)
	}
	b := startBase(t, bin, dir, d["ttyACM0"], d["lidar"], "driver on the replay", func(st api.State) error {
		if st.BatteryMV == 0 || st.Link.IMUHz < 90 || st.ScanAgeS == nil || *st.ScanAgeS > 0.5 {
			return fmt.Errorf("battery %d mV, imu %.1f Hz, scan age %v", st.BatteryMV, st.Link.IMUHz, st.ScanAgeS)
		}
		return nil
	})
	defer b.Stop()
	cl, st := b.Client, b.Ready
	if !batteries[st.BatteryMV] {
		t.Errorf("the driver's battery %d mV is not one the recording held (%v)", st.BatteryMV, batteries)
	}
	// One IMU message from the driver: its z acceleration is a recorded frame's (g -> m/s²).
	ictx, icancel := context.WithTimeout(context.Background(), testkit.Bound(3*time.Second))
	var imu api.IMU
	_ = cl.FollowIMU(ictx, func(m api.IMU) error { imu = m; icancel(); return context.Canceled })
	icancel()
	found := false
	for _, z := range accZ {
		if math.Abs(float64(z)*9.80665-imu.LinearAcceleration[2]) < 1e-4 {
			found = true
			break
		}
	}
	if !found {
		t.Errorf("the driver's IMU z acceleration %v m/s² is no recorded frame's", imu.LinearAcceleration[2])
	}
	t.Logf("driver on the replay: battery %d mV (recorded %d values), imu %.1f Hz (recorded %d frames in 2.5 s), scan age %.3f s, imu z %.4f m/s²",
		st.BatteryMV, len(batteries), st.Link.IMUHz, len(accZ), *st.ScanAgeS, imu.LinearAcceleration[2])
	cancel()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.res.Written["ttyACM0"] == 0 || len(r.res.Compared) != 1 {
		t.Fatalf("the driver wrote %v; comparisons %v", r.res.Written, r.res.Compared)
	}
	if tx := mcaptest.Bytes(t, out)["/serial/board/tx"]; tx != r.res.Written["ttyACM0"] {
		t.Errorf("--out holds %d tx bytes, the driver wrote %d", tx, r.res.Written["ttyACM0"])
	}
	t.Logf("replay: %d passes, %d messages, max lateness %s; %s", r.res.Passes, r.res.Messages, r.res.MaxLate, r.res.Compared[0])
}

// TestTapBetweenSimAndDriver: `capture tap` between the sim's board and a real `rosorin-base run`: the
// driver runs on the tap's link as on the device, and the capture holds both directions with the decoded
// IMU and the twist of the driver's motor frames.
func TestTapBetweenSimAndDriver(t *testing.T) {
	bin, err := testkit.Binary("./cmd/rosorin-base")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := sim.Start(context.Background(), sim.Config{Dir: filepath.Join(dir, "sim"), World: "stand", Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	link, out := filepath.Join(dir, "tap-board"), filepath.Join(dir, "tap.mcap")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		res live.TapResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := live.Tap(ctx, live.TapOptions{Device: s.BoardPath(), Link: link, Out: out, Kind: capture.Board})
		done <- result{r, err}
	}()
	if err := testkit.Eventually(testkit.Bound(5*time.Second), func() error { _, err := os.Stat(link); return err }); err != nil {
		t.Fatal(err)
	}
	b := startBase(t, bin, dir, link, s.LidarPath(), "driver through the tap", func(st api.State) error {
		if st.BatteryMV == 0 || st.Link.IMUHz < 90 {
			return fmt.Errorf("battery %d mV, imu %.1f Hz", st.BatteryMV, st.Link.IMUHz)
		}
		return nil
	})
	defer b.Stop()
	st := b.Ready
	b.Stop() // its stop path writes to the board through the tap too
	cancel()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	info, got := mcaptest.Messages(t, out)
	if info.Ended != mcapfile.EndClean || got["/imu"] < 50 || got["/battery"] == 0 || got["/serial/board/tx"] == 0 ||
		got["/wheel_twist"] == 0 || r.res.Unrecorded != 0 {
		t.Fatalf("capture: ended %s, messages %v, unrecorded %d", info.Ended, got, r.res.Unrecorded)
	}
	t.Logf("driver through the tap: battery %d mV, imu %.1f Hz; capture %v; relayed %d bytes to the driver, %d to the board (%v)",
		st.BatteryMV, st.Link.IMUHz, got, r.res.ToHost, r.res.ToDevice, r.res.SummaryTx.ByFunc)
}
