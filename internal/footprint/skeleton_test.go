package footprint

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/pprofenv"
	"github.com/rosorin/rosorin/internal/rawio"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/ros2/dds"
	"github.com/rosorin/rosorin/serialport"
	"github.com/rosorin/rosorin/sim"
)

// The skeleton is the service's input and output with none of its work: the same ports, the same rates, the
// same processes and goroutine hand-overs, and nothing decided. What it takes is the floor under the design
// (issue 21: "if a target cannot be met, show the profile that says where the floor is"):
//
//   - "service": three processes as rosorin-base run has them. The supervisor opens the board, its pump reads
//     the port and writes each read to the driver's pipe, and it reads the driver's heartbeats. The driver
//     reads the pipe in a goroutine that parses the frames and hands each read to the loop, which ticks at
//     50 Hz (a heartbeat byte and a motor frame handed to a writer goroutine) and takes the commands (a FIFO,
//     20 Hz) and the scans (a pipe from the reader). The reader reads the LiDAR, parses the packets and
//     writes one scan per revolution to the driver.
//   - "single": the same reads, parses, ticks and writes in one process, each port's reads parsed in the
//     goroutine that read them, no hand-over: the floor of any Go program that does this I/O.
//
// The skeleton reads and writes its descriptors as the service does (internal/rawio: raw system calls under Go's
// poller). A suffix changes how: "-1p" runs the skeleton's processes with GOMAXPROCS=1; "-osfile" uses
// os.File's reads and writes (the service before rawio); "-block" reads the two ports and the driver's pipe
// with blocking read(2) in their goroutines (the descriptor taken out of Go's poller); "-nohop" (service) has the driver count the board's frames
// in its reading goroutine and write the motor frame from the loop, without the two hand-overs.
const (
	envSkelRole = "ROSORIN_FOOTPRINT_SKELETON" // set in a re-executed test binary: the role it plays
	envFloor    = "ROSORIN_FOOTPRINT_FLOOR"    // BenchmarkFloor's variants, comma-separated
	skelBuf     = 4096
	skelTick    = 20 * time.Millisecond
	skelScan    = 2048 // bytes the reader sends per revolution (a scan of about 500 ranges as float32)
)

// skelCounts is what a skeleton process did, printed as one JSON line on its way out.
type skelCounts struct {
	Role        string `json:"role"`
	BoardReads  uint64 `json:"board_reads"`
	BoardFrames uint64 `json:"board_frames"`
	LidarReads  uint64 `json:"lidar_reads"`
	Packets     uint64 `json:"packets"`
	Scans       uint64 `json:"scans"`
	Commands    uint64 `json:"commands"`
	Ticks       uint64 `json:"ticks"`
	Heartbeats  uint64 `json:"heartbeats"`
	MotorWrites uint64 `json:"motor_writes"`
	IMUPub      uint64 `json:"imu_published"` // the DDS skeleton's (skeleton_dds_test.go)
	OdomPub     uint64 `json:"odom_published"`
	ScanPub     uint64 `json:"scans_published"`
}

// ddsSkeleton is the "dds" role, set in a test binary built with -tags ros2 (skeleton_dds_test.go).
var ddsSkeleton func(c *skelCounts) error

// runSkeleton plays the role named by envSkelRole, if any, and reports whether it did (TestMain then exits).
func runSkeleton() bool {
	role := os.Getenv(envSkelRole)
	if role == "" {
		return false
	}
	pprofenv.Start("skel-" + role) // ROSORIN_PPROF_DIR, as the service's processes
	block := os.Getenv(envSkelRole+"_BLOCK") == "1"
	var c skelCounts
	var err error
	switch role {
	case "supervisor":
		err = skelSupervisor(&c, block, os.Args[1], os.Args[2], os.Args[3])
	case "driver":
		err = skelDriver(&c, block, os.Getenv(envSkelRole+"_NOHOP") == "1", os.Args[1])
	case "reader":
		err = skelReader(&c, block, os.Args[1])
	case "single":
		err = skelSingle(&c, block, os.Args[1], os.Args[2], os.Args[3])
	case "dds":
		if ddsSkeleton == nil {
			err = errors.New("the dds skeleton needs a test binary built with -tags ros2")
		} else {
			err = ddsSkeleton(&c)
		}
	default:
		err = fmt.Errorf("unknown role %q", role)
	}
	// The reading goroutines still run and count (atomically): load each count once.
	snap := skelCounts{Role: role}
	for _, f := range []struct{ dst, src *uint64 }{{&snap.BoardReads, &c.BoardReads}, {&snap.BoardFrames, &c.BoardFrames},
		{&snap.LidarReads, &c.LidarReads}, {&snap.Packets, &c.Packets}, {&snap.Scans, &c.Scans}, {&snap.Commands, &c.Commands},
		{&snap.Ticks, &c.Ticks}, {&snap.Heartbeats, &c.Heartbeats}, {&snap.MotorWrites, &c.MotorWrites},
		{&snap.IMUPub, &c.IMUPub}, {&snap.OdomPub, &c.OdomPub}, {&snap.ScanPub, &c.ScanPub}} {
		*f.dst = atomic.LoadUint64(f.src)
	}
	line, _ := json.Marshal(&snap)
	fmt.Println(string(line))
	if err != nil {
		fmt.Fprintf(os.Stderr, "skeleton %s: %v\n", role, err)
		os.Exit(1)
	}
	return true
}

// skelFile is f with the service's reads and writes (rawio, raw system calls under the poller), or os.File's
// own with the "-osfile" suffix (and for a descriptor rawio refuses).
func skelFile(f *os.File) io.ReadWriteCloser {
	if os.Getenv(envSkelRole+"_OSFILE") == "1" {
		return f
	}
	if rf, err := rawio.NewFile(f); err == nil {
		return rf
	}
	return f
}

// skelInput is skelFile(f), or with block a blocking descriptor read outside Go's poller.
func skelInput(f *os.File, block bool) (io.ReadCloser, error) {
	if !block {
		return skelFile(f), nil
	}
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	f.Close()
	if err := syscall.SetNonblock(fd, false); err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil // a blocking descriptor: NewFile keeps it off the poller
}

// terminated is closed on SIGTERM or SIGINT.
func terminated() <-chan struct{} {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	done := make(chan struct{})
	go func() { <-ch; close(done) }()
	return done
}

// skelChild starts a skeleton process with fds as its descriptors 3, 4, ... It passes raw descriptors, as the
// supervisor does (driver/supervisor/spawn_linux.go): exec.Cmd.ExtraFiles would call File.Fd, which puts the
// open file, shared with the parent, into blocking mode, and the parent's own reads of it with it.
func skelChild(name string, args []string, fds ...int) (int, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	// The link's name is the child's comm, which tells the measurement which process is which.
	link := filepath.Join(filepath.Dir(self), "skel-"+name)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envSkelRole+"=") { // the parent's role is not the child's (ForkExec keeps duplicates)
			env = append(env, kv)
		}
	}
	env = append(env, envSkelRole+"="+name)
	files := []uintptr{0, 1, 2}
	for _, fd := range fds {
		files = append(files, uintptr(fd))
	}
	return syscall.ForkExec(link, append([]string{link}, args...), &syscall.ProcAttr{
		Env: env, Files: files, Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
}

// skelPipe is a non-blocking pipe whose ends are raw descriptors, close-on-exec.
func skelPipe() (r, w int, err error) {
	var p [2]int
	err = syscall.Pipe2(p[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK)
	return p[0], p[1], err
}

// skelDup duplicates f's descriptor (the same open file), close-on-exec.
func skelDup(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	nfd, derr := -1, error(nil)
	if err := rc.Control(func(fd uintptr) {
		r, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_DUPFD_CLOEXEC, 0)
		nfd = int(r)
		if e != 0 {
			derr = e
		}
	}); err != nil {
		return -1, err
	}
	return nfd, derr
}

func skelSupervisor(c *skelCounts, block bool, boardPath, lidarPath, fifo string) error {
	done := terminated()
	port, err := serialport.OpenBoard(boardPath)
	if err != nil {
		return err
	}
	feedR, feedWFD, err := skelPipe()
	if err != nil {
		return err
	}
	hbRFD, hbW, err := skelPipe()
	if err != nil {
		return err
	}
	scanR, scanW, err := skelPipe()
	if err != nil {
		return err
	}
	portFD, err := skelDup(port)
	if err != nil {
		return err
	}
	drv, err := skelChild("driver", []string{fifo}, feedR, portFD, hbW, scanR) // fds 3, 4, 5, 6
	if err != nil {
		return err
	}
	rdr, err := skelChild("reader", []string{lidarPath}, scanW) // fd 3
	if err != nil {
		return err
	}
	for _, fd := range []int{feedR, portFD, hbW, scanR, scanW} {
		syscall.Close(fd)
	}
	feedW, hbR := skelFile(os.NewFile(uintptr(feedWFD), "feed")), skelFile(os.NewFile(uintptr(hbRFD), "heartbeat"))
	in, err := skelInput(port, block)
	if err != nil {
		return err
	}
	var reads atomic.Uint64
	go func() { // the pump
		buf := make([]byte, skelBuf)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				reads.Add(1)
				_, _ = feedW.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	var beats atomic.Uint64
	go func() { // the watchdog's heartbeat reader
		buf := make([]byte, 64)
		for {
			n, err := hbR.Read(buf)
			beats.Add(uint64(n))
			if err != nil {
				return
			}
		}
	}()
	status := time.NewTicker(time.Second)
	defer status.Stop()
	for {
		select {
		case <-status.C:
		case <-done:
			for _, pid := range []int{drv, rdr} {
				_ = syscall.Kill(pid, syscall.SIGTERM)
			}
			for _, pid := range []int{drv, rdr} {
				var ws syscall.WaitStatus
				_, _ = syscall.Wait4(pid, &ws, 0, nil)
			}
			c.BoardReads, c.Heartbeats = reads.Load(), beats.Load()
			return nil
		}
	}
}

// skelBoard reads the board's bytes from in and parses them; each read's frame count goes to out, or, when
// out is nil, stays in c.
func skelBoard(in io.Reader, c *skelCounts, out chan<- int) {
	var p board.Parser
	buf := make([]byte, skelBuf)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			frames := 0
			p.Feed(buf[:n], func(board.Frame) { frames++ })
			if out != nil {
				out <- frames
			} else {
				atomic.AddUint64(&c.BoardReads, 1)
				atomic.AddUint64(&c.BoardFrames, uint64(frames))
			}
		}
		if err != nil {
			return
		}
	}
}

// skelLidar reads the LiDAR and parses its packets; at each revolution's start packet it calls scan.
func skelLidar(in io.Reader, c *skelCounts, scan func()) {
	var p coind6.Parser
	buf := make([]byte, skelBuf)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			atomic.AddUint64(&c.LidarReads, 1)
			p.Feed(buf[:n], func(pkt []byte) {
				atomic.AddUint64(&c.Packets, 1)
				if k, err := coind6.Decode(pkt); err == nil && k.RingStart() {
					scan()
				}
			})
		}
		if err != nil {
			return
		}
	}
}

// skelCommands reads the commands' FIFO; each read goes to out, or is counted when out is nil.
func skelCommands(path string, c *skelCounts, out chan<- struct{}) error {
	ff, err := os.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	f := skelFile(ff)
	go func() {
		buf := make([]byte, 512)
		for {
			_, err := f.Read(buf)
			if err != nil {
				return
			}
			if out != nil {
				out <- struct{}{}
			} else {
				atomic.AddUint64(&c.Commands, 1)
			}
		}
	}()
	return nil
}

func skelDriver(c *skelCounts, block, nohop bool, fifo string) error {
	done := terminated()
	feed, err := skelInput(os.NewFile(3, "feed"), block)
	if err != nil {
		return err
	}
	port, hb, scans := skelFile(os.NewFile(4, "board")), skelFile(os.NewFile(5, "heartbeat")), skelFile(os.NewFile(6, "scans"))
	batches, cmds, scanc := make(chan int, 16), make(chan struct{}, 16), make(chan struct{}, 4)
	if nohop {
		go skelBoard(feed, c, nil)
	} else {
		go skelBoard(feed, c, batches)
	}
	if err := skelCommands(fifo, c, cmds); err != nil {
		return err
	}
	go func() {
		buf := make([]byte, skelScan)
		for {
			if _, err := io.ReadFull(scans, buf); err != nil {
				return
			}
			scanc <- struct{}{}
		}
	}()
	frames := make(chan []byte, 1) // the board writer: one pending frame, the newest wins
	var writes atomic.Uint64
	go func() {
		for f := range frames {
			if _, err := port.Write(f); err != nil {
				return
			}
			writes.Add(1)
		}
	}()
	tick := time.NewTicker(skelTick)
	defer tick.Stop()
	beat := []byte{1}
	for {
		select {
		case n := <-batches:
			atomic.AddUint64(&c.BoardReads, 1)
			atomic.AddUint64(&c.BoardFrames, uint64(n))
		case <-cmds:
			c.Commands++
		case <-scanc:
			c.Scans++
		case <-tick.C:
			c.Ticks++
			_, _ = hb.Write(beat)
			if nohop {
				if _, err := port.Write(board.StopFrame()); err == nil {
					writes.Add(1)
				}
				continue
			}
			select {
			case frames <- board.StopFrame():
			default:
			}
		case <-done:
			c.MotorWrites = writes.Load()
			return nil
		}
	}
}

func skelReader(c *skelCounts, block bool, lidarPath string) error {
	done := terminated()
	f, err := serialport.OpenLidar(lidarPath)
	if err != nil {
		return err
	}
	in, err := skelInput(f, block)
	if err != nil {
		return err
	}
	out := skelFile(os.NewFile(3, "scans"))
	scan := make([]byte, skelScan)
	go skelLidar(in, c, func() {
		atomic.AddUint64(&c.Scans, 1)
		_, _ = out.Write(scan)
	})
	<-done
	return nil
}

func skelSingle(c *skelCounts, block bool, boardPath, lidarPath, fifo string) error {
	done := terminated()
	port, err := serialport.OpenBoard(boardPath)
	if err != nil {
		return err
	}
	lf, err := serialport.OpenLidar(lidarPath)
	if err != nil {
		return err
	}
	bin, err := skelInput(port, block)
	if err != nil {
		return err
	}
	pw, _ := bin.(io.Writer) // the same descriptor: with block, port itself is closed
	lin, err := skelInput(lf, block)
	if err != nil {
		return err
	}
	go skelBoard(bin, c, nil)
	go skelLidar(lin, c, func() { atomic.AddUint64(&c.Scans, 1) })
	if err := skelCommands(fifo, c, nil); err != nil {
		return err
	}
	tick := time.NewTicker(skelTick)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			c.Ticks++
			if _, err := pw.Write(board.StopFrame()); err == nil {
				c.MotorWrites++
			}
		case <-done:
			return nil
		}
	}
}

// skeleton is a running skeleton against a sim, its counts read when it stops.
type skeleton struct {
	cmd   *exec.Cmd
	out   *bufio.Scanner
	since time.Time
	stop  func()
}

// floorVariant is one of BenchmarkFloor's variants: "rosorin-base" or a skeleton's name with its suffixes.
type floorVariant struct {
	name, kind                 string // kind: "service", "single" or "rosorin-base"
	oneP, block, nohop, osfile bool
}

func parseFloorVariant(s string) (floorVariant, error) {
	v := floorVariant{name: s}
	rest := s
	for {
		switch {
		case strings.HasSuffix(rest, "-1p"):
			v.oneP, rest = true, strings.TrimSuffix(rest, "-1p")
			continue
		case strings.HasSuffix(rest, "-osfile"):
			v.osfile, rest = true, strings.TrimSuffix(rest, "-osfile")
			continue
		case strings.HasSuffix(rest, "-nohop"):
			v.nohop, rest = true, strings.TrimSuffix(rest, "-nohop")
			continue
		case strings.HasSuffix(rest, "-block"):
			v.block, rest = true, strings.TrimSuffix(rest, "-block")
			continue
		}
		break
	}
	switch rest {
	case "service":
	case "single":
		if v.nohop {
			return v, fmt.Errorf("%q: -nohop is the service's driver without its hand-overs; single has none", s)
		}
	case "dds":
		if v.block || v.nohop || v.osfile {
			return v, fmt.Errorf("%q: the dds skeleton reads no port (-1p is its only suffix)", s)
		}
	case "rosorin-base":
		if v.oneP || v.block || v.nohop || v.osfile {
			return v, fmt.Errorf("%q: rosorin-base takes no suffix (GOMAXPROCS=1 goes in %s)", s, envArgs)
		}
	default:
		return v, fmt.Errorf("%q: want service, single, dds or rosorin-base, with -1p, -osfile, -block and (service) -nohop suffixes for the first two", s)
	}
	v.kind = rest
	return v, nil
}

// startSkeleton runs the skeleton v against a fresh floor-world sim and feeds it commands at 20 Hz (the dds
// skeleton needs neither: it publishes on its own clock, in a ROS domain of its own, on 127.0.0.1).
func startSkeleton(tb testing.TB, v floorVariant) *skeleton {
	tb.Helper()
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	// The links live beside the test binary (the children find them there); comm is the link's name.
	for _, r := range []string{"supervisor", "driver", "reader", "single", "dds"} {
		link := filepath.Join(filepath.Dir(self), "skel-"+r)
		if _, err := os.Lstat(link); err != nil {
			if err := os.Symlink(self, link); err != nil {
				tb.Fatal(err)
			}
		}
	}
	role := map[string]string{"service": "supervisor", "single": "single", "dds": "dds"}[v.kind]
	env := append(os.Environ(), envSkelRole+"="+role)
	var args []string
	var fifo string
	closeSim := func() {}
	if v.kind == "dds" {
		env = append(env, "ROS_DOMAIN_ID="+strconv.Itoa(100+os.Getpid()%100), "CYCLONEDDS_URI="+dds.LoopbackConfig, "ROS_LOCALHOST_ONLY=")
	} else {
		ctx, cancel := context.WithCancel(context.Background())
		sm, err := sim.Start(ctx, sim.Config{World: "floor", Seed: 1, Dir: tb.TempDir()})
		if err != nil {
			cancel()
			tb.Fatalf("start the sim: %v", err)
		}
		closeSim = func() { cancel(); sm.Close() }
		fifo = filepath.Join(tb.TempDir(), "commands")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			closeSim()
			tb.Fatal(err)
		}
		args = []string{sm.BoardPath(), sm.LidarPath(), fifo}
	}
	cmd := exec.Command(filepath.Join(filepath.Dir(self), "skel-"+role), args...)
	cmd.Env = env
	if v.block {
		cmd.Env = append(cmd.Env, envSkelRole+"_BLOCK=1")
	}
	if v.nohop {
		cmd.Env = append(cmd.Env, envSkelRole+"_NOHOP=1")
	}
	if v.osfile {
		cmd.Env = append(cmd.Env, envSkelRole+"_OSFILE=1")
	}
	if v.oneP {
		cmd.Env = append(cmd.Env, "GOMAXPROCS=1")
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		closeSim()
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		closeSim()
		tb.Fatal(err)
	}
	quit, fed := make(chan struct{}), make(chan struct{})
	var w *os.File
	if fifo == "" {
		close(fed)
	} else {
		// Opening the FIFO for writing waits for the skeleton to open it for reading.
		if w, err = os.OpenFile(fifo, os.O_WRONLY, 0); err != nil {
			_ = cmd.Process.Kill()
			closeSim()
			tb.Fatal(err)
		}
		go func() {
			defer close(fed)
			t := time.NewTicker(rate)
			defer t.Stop()
			msg := []byte(`{"linear":{"x":0.05,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0}}` + "\n")
			for {
				select {
				case <-quit:
					return
				case <-t.C:
					if _, err := w.Write(msg); err != nil {
						return
					}
				}
			}
		}()
	}
	s := &skeleton{cmd: cmd, out: bufio.NewScanner(stdout), since: time.Now()}
	var once sync.Once
	s.stop = func() {
		once.Do(func() {
			close(quit)
			<-fed
			if w != nil {
				w.Close()
			}
			_ = cmd.Process.Signal(syscall.SIGTERM)
			closeSim()
		})
	}
	tb.Cleanup(func() {
		s.stop()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return s
}

// counts stops the skeleton and returns what each of its processes did, by role.
func (s *skeleton) counts(tb testing.TB) (map[string]skelCounts, time.Duration) {
	tb.Helper()
	lived := time.Since(s.since)
	// The counts are printed on SIGTERM, which stop sends: read them before the sim closes under them.
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	got := map[string]skelCounts{}
	for s.out.Scan() {
		var c skelCounts
		if err := json.Unmarshal(s.out.Bytes(), &c); err != nil {
			tb.Fatalf("skeleton's counts %q: %v", s.out.Text(), err)
		}
		got[c.Role] = c
	}
	s.stop()
	if err := s.cmd.Wait(); err != nil {
		tb.Fatalf("skeleton: %v", err)
	}
	return got, lived
}

// checkSkeleton fails unless the skeleton did the service's work at frac of the service's rates over lived:
// a skeleton that read nothing would cost nothing and prove no floor. The rates are the sim's: about 110
// board frames, 170 LiDAR packets, 50 ticks, 20 commands and 10 revolutions a second (the table below holds
// half of each, frac 0.5).
func checkSkeleton(kind string, got map[string]skelCounts, lived time.Duration, frac float64) error {
	s := lived.Seconds()
	var sum skelCounts
	for _, c := range got {
		sum.BoardReads += c.BoardReads
		sum.BoardFrames += c.BoardFrames
		sum.Packets += c.Packets
		sum.Scans += c.Scans
		sum.Commands += c.Commands
		sum.Ticks += c.Ticks
		sum.Heartbeats += c.Heartbeats
		sum.MotorWrites += c.MotorWrites
	}
	if kind == "dds" {
		var bad []string
		c := got["dds"]
		for what, cw := range map[string][2]float64{"IMU messages": {float64(c.IMUPub), 55}, "odometry messages": {float64(c.OdomPub), 25},
			"scans": {float64(c.ScanPub), 5}} {
			if cw[0] < 2*frac*cw[1]*s {
				bad = append(bad, fmt.Sprintf("%s %.0f in %.1f s (want at least %.0f/s)", what, cw[0], s, 2*frac*cw[1]))
			}
		}
		if len(bad) > 0 {
			sort.Strings(bad)
			return fmt.Errorf("the dds skeleton did not publish: %s", strings.Join(bad, "; "))
		}
		return nil
	}
	want := map[string][2]float64{ // what: counted, wanted per second
		"board frames":         {float64(sum.BoardFrames), 55},
		"LiDAR packets":        {float64(sum.Packets), 85},
		"scans (at least)":     {float64(sum.Scans), 5},
		"commands":             {float64(sum.Commands), 10},
		"ticks":                {float64(sum.Ticks), 25},
		"motor frames written": {float64(sum.MotorWrites), 25},
	}
	if kind == "service" {
		want["heartbeats at the supervisor"] = [2]float64{float64(sum.Heartbeats), 25}
		want["board reads by the supervisor"] = [2]float64{float64(got["supervisor"].BoardReads), 25}
		want["scans at the driver"] = [2]float64{float64(got["driver"].Scans), 5}
	}
	var bad []string
	for what, cw := range want {
		if cw[0] < 2*frac*cw[1]*s {
			bad = append(bad, fmt.Sprintf("%s %.0f in %.1f s (want at least %.0f/s)", what, cw[0], s, 2*frac*cw[1]))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("the skeleton did not do the work: %s (counts %+v)", strings.Join(bad, "; "), got)
	}
	return nil
}

func skelRole(root int) func(Proc) string {
	return func(p Proc) string {
		if r, ok := strings.CutPrefix(p.Comm, "skel-"); ok {
			return r
		}
		if p.PID == root {
			return "root"
		}
		return p.Comm
	}
}

// BenchmarkFloor measures the skeleton variants and rosorin-base itself (no ROS 2, no capture) back to back,
// each against its own floor-world sim, in rounds (ROSORIN_FOOTPRINT_ROUNDS) so that the machine's drifting
// load falls on all of them alike. ROSORIN_FOOTPRINT_FLOOR lists the variants (default
// "single,service,service-osfile,service-1p,service-nohop,dds,rosorin-base"; dds needs -tags ros2 and is
// skipped without it):
//
//	go test -tags ros2 -run '^$' -bench Floor -benchtime 1x ./internal/footprint
func BenchmarkFloor(b *testing.B) {
	if testkit.RaceEnabled {
		b.Skip("a measurement of CPU and memory: a -race build costs several times both")
	}
	spec := os.Getenv(envFloor)
	if spec == "" {
		spec = "single,service,service-osfile,service-1p,service-nohop,dds,rosorin-base"
	}
	var vs []floorVariant
	for _, s := range strings.Split(spec, ",") {
		v, err := parseFloorVariant(strings.TrimSpace(s))
		if err != nil {
			b.Fatalf("%s: %v", envFloor, err)
		}
		vs = append(vs, v)
	}
	window, warmup := envDuration(b, envWindow, 20*time.Second), envDuration(b, envWarmup, 5*time.Second)
	rounds := envRoundsOf(b)
	for range rounds {
		for _, v := range vs {
			b.Run("what="+v.name, func(b *testing.B) {
				if v.kind == "rosorin-base" {
					bd := builds(b)
					benchService(b, bd[len(bd)-1], false, false, warmup, window)
					return
				}
				if v.kind == "dds" && ddsSkeleton == nil {
					b.Skip("dds: go test -tags ros2 builds the dds skeleton")
				}
				s := startSkeleton(b, v)
				time.Sleep(warmup)
				us, err := measureTree(s.cmd.Process.Pid, skelRole(s.cmd.Process.Pid), window)
				if err != nil {
					b.Fatal(err)
				}
				got, lived := s.counts(b)
				if err := checkSkeleton(v.kind, got, lived, 0.5); err != nil {
					b.Fatal(err)
				}
				report(b, us)
				b.ReportMetric(0, "ns/op")
				if v.kind != "service" && len(us) != 1 || v.kind == "service" && len(us) != 3 {
					b.Fatalf("%d processes measured: %+v", len(us), us)
				}
			})
		}
	}
}

// TestSkeletonDoesTheWork runs each skeleton for a few seconds against the sim and checks it did the
// service's I/O at the service's rates (checkSkeleton): the floor BenchmarkFloor reports is of this work.
func TestSkeletonDoesTheWork(t *testing.T) {
	testkit.SkipShort(t, "two skeletons against the sim, 4 s each")
	for _, name := range []string{"single", "service", "dds"} {
		t.Run(name, func(t *testing.T) {
			if name == "dds" && ddsSkeleton == nil {
				t.Skip("go test -tags ros2 builds the dds skeleton")
			}
			v, err := parseFloorVariant(name)
			if err != nil {
				t.Fatal(err)
			}
			s := startSkeleton(t, v)
			time.Sleep(4 * time.Second)
			root := s.cmd.Process.Pid
			ps, err := Tree(root)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]int{"single": 1, "service": 3, "dds": 1}[name]; len(ps) != want {
				t.Errorf("%d processes, want %d: %+v", len(ps), want, ps)
			}
			got, lived := s.counts(t)
			// A quarter of the rates: this runs beside compilers and other tests (CI's part 1) and under -race;
			// it checks that every part of the skeleton works, the benchmark checks its rates.
			if err := checkSkeleton(v.kind, got, lived, 0.25); err != nil {
				t.Error(err)
			}
			t.Logf("%s in %.1f s: %+v", name, lived.Seconds(), got)
		})
	}
}
