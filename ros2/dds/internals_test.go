//go:build ros2 && linux && cgo

package dds_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/ros2/dds"
)

// TestInternalsOn: the libddsc this test runs with is the release the package was built against (Debian's
// 0.10.2 here), and its internal bitfields are where 0.10.2 has them: the watch and catch-up are on.
func TestInternalsOn(t *testing.T) {
	if err := dds.Internals(); err != nil {
		t.Fatalf("internals off with the library this package was built against: %v", err)
	}
	if dds.BuiltVersion != "0.10.2" {
		t.Errorf("built against %q; the layout asserts in rosorin_dds.c are 0.10.2's", dds.BuiltVersion)
	}
}

// TestCheckRuntimeVersion: only the release built against passes; another release, a file name without one,
// or no library found turns the internals off with a reason that names both releases.
func TestCheckRuntimeVersion(t *testing.T) {
	for _, tc := range []struct {
		path string
		ok   bool
		says string
	}{
		{"/usr/lib/x86_64-linux-gnu/libddsc.so.0.10.2", true, ""},
		{"/opt/ros/humble/lib/libddsc.so.0.10.3", false, "Cyclone DDS 0.10.3"},
		{"/usr/lib/libddsc.so.0.11.0", false, "built against 0.10.2"},
		{"/usr/lib/libddsc.so.0debian", false, "does not name its release"},
		{"/usr/lib/libddsc.so", false, "does not name its release"},
		{"/usr/lib/libddsc.so.0.10", false, "does not name its release"},
		{"/usr/lib/libddsc.so.0.10.2.1", false, "does not name its release"},
		{"", false, "release is unknown"},
	} {
		err := dds.CheckRuntimeVersion("0.10.2", tc.path)
		if (err == nil) != tc.ok || (err != nil && !strings.Contains(err.Error(), tc.says)) {
			t.Errorf("%q: %v; want ok=%v, saying %q", tc.path, err, tc.ok, tc.says)
		}
	}
}

// TestProgressAndCatchUp drives Reader.Progress and QoS.CatchUp directly. A writer in another process (a
// proxy writer: a writer in this process is matched locally and has no reliable-protocol state) writes k
// samples; every reliable reader, with catch-up and without, must see Announced == k and Next == k+1 (all
// announced, all received), so a Progress that always said 0 (or read the wrong field) fails. Catch-up is
// read back from Cyclone's reader: set with QoS.CatchUp, clear without (the positive and negative control),
// and not applied while the internals are off, when Progress returns the reason instead of numbers.
func TestProgressAndCatchUp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second process")
	}
	const k = 7
	dom := testDomain()
	p, err := dds.NewParticipant(dom, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	topic, typ := "rt/test_progress", "std_msgs::msg::dds_::Bool_"
	plain, err := p.NewReader(topic, typ, dds.QoS{Reliable: true, Depth: 100}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	catchUp, err := p.NewReader(topic, typ, dds.QoS{Reliable: true, Depth: 100, CatchUp: true}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer catchUp.Close()
	if on, err := catchUp.CatchingUp(); err != nil || !on {
		t.Errorf("reader with QoS.CatchUp: catching up %v, %v; want true", on, err)
	}
	if on, err := plain.CatchingUp(); err != nil || on {
		t.Errorf("reader without QoS.CatchUp: catching up %v, %v; want false", on, err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestProgressWriterProcess$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("ROSORIN_DDS_PROGRESS_WRITER=%d,%d", dom, k))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() }()
	sc := bufio.NewScanner(out)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "written") {
	}
	if !strings.HasPrefix(sc.Text(), "written") {
		t.Fatalf("the writer process did not write (%v)", sc.Err())
	}
	want := fmt.Sprintf("[{Announced:%d Next:%d Known:true}]", k, k+1)
	var got string
	for end := time.Now().Add(5 * time.Second); ; {
		got = ""
		for _, r := range []*dds.Reader{plain, catchUp} {
			pr, err := r.Progress(nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range pr {
				if pr[i].Writer == 0 {
					t.Errorf("a writer without a publication handle: %+v", pr[i])
				}
				pr[i].Writer = 0
			}
			got += strings.ReplaceAll(fmt.Sprintf("%+v", pr), "Writer:0 ", "")
		}
		if got == want+want || time.Now().After(end) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got != want+want {
		t.Fatalf("progress (plain, catch-up) %s; want %s twice: %d samples announced and received", got, want, k)
	}
	for _, r := range []*dds.Reader{plain, catchUp} {
		var buf []dds.Sample
		buf, _ = r.Take(buf)
		if len(buf) != k {
			t.Errorf("took %d samples, want %d", len(buf), k)
		}
	}

	// The internals off (another Cyclone at run time): Progress says why, catch-up is not applied.
	off := errors.New("test: the loaded libddsc is Cyclone DDS 0.10.3")
	restore := dds.SetInternalsForTest(off)
	defer restore()
	if _, err := plain.Progress(nil); !errors.Is(err, off) {
		t.Errorf("Progress with the internals off: %v, want %v", err, off)
	}
	r3, err := p.NewReader(topic, typ, dds.QoS{Reliable: true, Depth: 100, CatchUp: true}, "")
	if err != nil {
		t.Fatalf("a catch-up reader with the internals off must still be created: %v", err)
	}
	defer r3.Close()
	restore()
	if on, err := r3.CatchingUp(); err != nil || on {
		t.Errorf("catch-up reader made with the internals off: catching up %v, %v; want false", on, err)
	}
}

// TestProgressWriterProcess is TestProgressAndCatchUp's writer, run in a child process: it waits for the two
// readers, writes k samples, says "written" and lives until its stdin closes.
func TestProgressWriterProcess(t *testing.T) {
	dom, k, ok := strings.Cut(os.Getenv("ROSORIN_DDS_PROGRESS_WRITER"), ",")
	if !ok {
		t.Skip("the writer process of TestProgressAndCatchUp")
	}
	d, _ := strconv.Atoi(dom)
	n, _ := strconv.Atoi(k)
	p, err := dds.NewParticipant(d, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	w, err := p.NewWriter("rt/test_progress", "std_msgs::msg::dds_::Bool_", dds.QoS{Reliable: true, Depth: 100}, "")
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m, _ := w.Matched(); m >= 2 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the two readers did not match in 10 s")
		}
	}
	for i := 0; i < n; i++ {
		if err := w.Write([]byte{0, 1, 0, 0, 1}); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Println("written")
	io.Copy(io.Discard, os.Stdin)
}
