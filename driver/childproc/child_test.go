package childproc

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/protocol/board"
)

// testPipe is a pipe as the supervisor makes the heartbeat's: the child's write end a raw non-blocking fd, the
// read end an *os.File.
func testPipe() (w int, r *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return -1, nil, err
	}
	return p[1], os.NewFile(uintptr(p[0]), "test-pipe-r"), nil
}

// TestHaltWriter: after Halt, only stop frames reach the board; the stop frame is the last thing written.
func TestHaltWriter(t *testing.T) {
	var out bytes.Buffer
	h := NewHaltWriter(&out)
	motor, _ := board.EncodeWheelRPS([4]float64{1, 1, -1, -1})
	if _, err := h.Write(motor); err != nil {
		t.Fatal(err)
	}
	if err := h.Halt(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Write(motor); !errors.Is(err, ErrHalted) {
		t.Fatalf("motor frame after Halt: %v, want ErrHalted", err)
	}
	if _, err := h.Write(board.StopFrame()); err != nil {
		t.Fatalf("stop frame after Halt: %v", err)
	}
	want := append(append(append([]byte{}, motor...), board.StopFrame()...), board.StopFrame()...)
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("board got % x\nwant % x", out.Bytes(), want)
	}
	if !h.Halted() {
		t.Error("Halted false")
	}
}

func TestStartLatchedAndEnvSafe(t *testing.T) {
	t.Setenv(StartLatchedEnv, EnvSafe("estop request from pid 3 (sh): a\nb\x00c"))
	if got := StartLatched(); got != "estop request from pid 3 (sh): a b c" {
		t.Fatalf("StartLatched: %q", got)
	}
	if _, ok := os.LookupEnv(StartLatchedEnv); ok {
		t.Fatal("the variable is still in the environment")
	}
	if got := StartLatched(); got != "" {
		t.Fatalf("unset: %q, want none", got)
	}
	if n := len(EnvSafe(strings.Repeat("x", 5000))); n != 512 {
		t.Fatalf("EnvSafe kept %d bytes", n)
	}
}

// TestHeartbeatWriterNeverBlocks: a pipe nobody reads fills up; the writer then fails at once instead of
// parking the control loop.
func TestHeartbeatWriterNeverBlocks(t *testing.T) {
	fd, r, err := testPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer unix.Close(fd)
	w := &HeartbeatWriter{fd: fd}
	done := make(chan error, 1)
	go func() {
		for i := 0; i < 1<<20; i++ {
			if _, err := w.Write([]byte{'.'}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "full") {
			t.Fatalf("1 MiB of heartbeats into an unread pipe: %v, want a 'full' error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("heartbeat write blocked on a full pipe")
	}
}

// TestHeartbeat: the environment names the pipe; unset means none; a descriptor that is not a pipe is
// refused; the variable does not survive into what the child starts.
func TestHeartbeat(t *testing.T) {
	t.Setenv(HeartbeatEnv, "")
	os.Unsetenv(HeartbeatEnv)
	if h, err := Heartbeat(); h != nil || err != nil {
		t.Fatalf("unset: %v, %v", h, err)
	}
	fd, rf, err := testPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	defer unix.Close(fd)
	t.Setenv(HeartbeatEnv, strconv.Itoa(fd))
	h, err := Heartbeat()
	if err != nil || h == nil || h.fd != fd {
		t.Fatalf("pipe fd %d: %v, %v", fd, h, err)
	}
	if _, ok := os.LookupEnv(HeartbeatEnv); ok {
		t.Error("HeartbeatEnv still set after Heartbeat")
	}
	f, err := os.CreateTemp(t.TempDir(), "notapipe")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	t.Setenv(HeartbeatEnv, strconv.Itoa(int(f.Fd())))
	if _, err := Heartbeat(); err == nil || !strings.Contains(err.Error(), "not a pipe") {
		t.Fatalf("regular file: %v, want 'not a pipe'", err)
	}
	t.Setenv(HeartbeatEnv, "five")
	if _, err := Heartbeat(); err == nil {
		t.Fatal("HeartbeatEnv=five accepted")
	}
}
