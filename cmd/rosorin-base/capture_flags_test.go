package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/capture/segment"
	"github.com/rosorin/rosorin/driver/service"
	"github.com/rosorin/rosorin/driver/supervisor"
)

// TestCaptureFlags: run's recording flags parse (defaults 64MiB, 10m, 2GiB), reach the reader child through
// its hidden flags unchanged, and bad values are refused before the port is touched.
func TestCaptureFlags(t *testing.T) {
	var got *segment.SegmentOptions
	cmds := processCommands()
	for _, c := range cmds {
		if c.Name == "run" || c.Name == "lidar-reader" {
			c.Action = func(c *cli.Context) error {
				var err error
				got, err = captureOptions(c)
				return err
			}
		}
	}
	app := &cli.App{Name: "rosorin-base", Commands: cmds, ExitErrHandler: func(*cli.Context, error) {}}
	if err := app.Run([]string{"rosorin-base", "run", "--capture", "/var/log/rosorin/cap"}); err != nil {
		t.Fatal(err)
	}
	want := segment.SegmentOptions{Dir: "/var/log/rosorin/cap", RotateSize: 64 << 20, RotateTime: 10 * time.Minute, KeepBytes: 2 << 30}
	if got == nil || !reflect.DeepEqual(*got, want) {
		t.Fatalf("defaults %+v, want %+v", got, want)
	}
	for _, o := range []segment.SegmentOptions{want, {Dir: "/d", RotateSize: 1000, RotateTime: time.Second, KeepFiles: 7}} {
		o := o
		_, rargs := service.ChildArgs(service.Options{Socket: "/s", Capture: &o}, nil, "/dev/lidar", 1)
		got = nil
		if err := app.Run(append([]string{"rosorin-base"}, rargs...)); err != nil {
			t.Fatalf("%q: %v", rargs, err)
		}
		if got == nil || !reflect.DeepEqual(*got, o) {
			t.Fatalf("reader child parsed %+v from %q, want %+v", got, rargs, o)
		}
	}
	got = nil
	if err := app.Run([]string{"rosorin-base", "run"}); err != nil || got != nil {
		t.Fatalf("no --capture: %+v, %v", got, err)
	}
	for _, bad := range [][]string{{"--capture-keep", "lots"}, {"--capture-rotate-size", "1.5GiB"}, {"--capture-rotate-time", "-1s"}} {
		args := append([]string{"rosorin-base", "run", "--capture", "/x"}, bad...)
		if err := app.Run(args); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestCaptureDirChecked: an unwritable --capture directory is an error at start, before the board is opened.
func TestCaptureDirChecked(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	app := &cli.App{Name: "rosorin-base", Commands: processCommands(), ExitErrHandler: func(*cli.Context, error) {}}
	err := app.Run([]string{"rosorin-base", "run", "--device", dir + "/nodevice", "--socket", dir + "/s.sock",
		"--lidar", "", "--capture", filepath.Join(file, "cap")})
	if err == nil || !strings.Contains(err.Error(), "--capture") || strings.Contains(err.Error(), "board port") {
		t.Fatalf("run --capture under a file: %v; want a --capture error before the port", err)
	}
}

// TestPrintCaptureStatus: supervisor-status says loudly when recording stopped.
func TestPrintCaptureStatus(t *testing.T) {
	out := captureStdout(t, func() {
		printCaptureStatus(&supervisor.CaptureStatus{QueueStatus: segment.QueueStatus{Dir: "/cap", Error: "no space left on device"}})
		printCaptureStatus(nil)
		printCaptureStatus(&supervisor.CaptureStatus{QueueStatus: segment.QueueStatus{Recording: true, File: "/cap/board-x.mcap", Segments: 2}})
	})
	want := "CAPTURE STOPPED (/cap): no space left on device; the driver runs on without it\n" +
		"capture: recording into /cap/board-x.mcap (2 segments, 0 messages, 0 bytes; 0 dropped, 0 tx tap copies lost)\n"
	if out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
}

func captureStdout(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	fn()
	os.Stdout = old
	w.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}
