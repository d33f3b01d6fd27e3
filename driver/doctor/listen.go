package doctor

import (
	"fmt"
	"os"
	"strings"

	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/serialport"
)

// The board sends IMU frames at about 110 Hz from power-on (chapter 11) and a battery report every second.
const (
	imuLowHz, imuHighHz = 100.0, 120.0
	// The COIN-D6 turns at about 10 revolutions a second (chapter 14); below 5 or above 15 is a sick unit.
	revLow, revHigh = 5.0, 15.0
)

// boardListen is what listening to the board for a while found.
type boardListen struct {
	seconds float64
	bytes   int
	byFunc  map[byte]int
	stats   board.Stats
	battery *board.Battery
	bad     int // frames that passed the checksum and did not decode
}

// checkBoardTalking listens to a free port (read-only: the doctor never writes a frame). A port the driver
// holds is judged from the driver's own counters in the service check instead.
func checkBoardTalking(r *Report, o Options, held []serialport.Holder) {
	const area, name = "board", "board talking"
	switch {
	case r.Find("board device") == nil || r.Find("board device").Status == Fail:
		r.add(area, name, Skip, "no device to listen to", "")
		return
	case len(held) > 0 && r.Find("board port free").Status == Pass:
		r.add(area, name, Skip, "the driver holds the port: see \"driver link\" below", "")
		return
	case len(held) > 0:
		r.add(area, name, Skip, "another process holds the port", "free the port first (above)")
		return
	}
	f, err := serialport.Open(o.Device, serialport.Options{Baud: serialport.BoardBaud, ReadOnly: true, Exclusive: true})
	if err != nil {
		st, fix := Fail, "see the checks above"
		if serialport.IsBusy(err) {
			fix = "another process holds the port (one this user cannot see): sudo fuser -v " + o.Device
		}
		r.add(area, name, st, "cannot open "+o.Device+": "+err.Error(), fix)
		return
	}
	defer f.Close()
	l := listenBoard(f, o)
	judgeBoard(r, o.Device, l)
}

func listenBoard(f *os.File, o Options) boardListen {
	l := boardListen{byFunc: map[byte]int{}}
	var p board.Parser
	start := o.Clock.Now()
	end := start.Add(o.Listen)
	_ = f.SetReadDeadline(end)
	buf := make([]byte, 4096)
	for {
		n, err := f.Read(buf)
		l.bytes += n
		p.Feed(buf[:n], func(fr board.Frame) {
			l.byFunc[fr.Func]++
			m, err := board.Decode(fr)
			if err != nil {
				l.bad++
				return
			}
			if b, ok := m.(board.Battery); ok {
				l.battery = &b
			}
		})
		if err != nil {
			break
		}
	}
	l.seconds = o.Clock.Now().Sub(start).Seconds()
	l.stats = p.Stats()
	return l
}

func judgeBoard(r *Report, dev string, l boardListen) {
	const area = "board"
	if l.seconds <= 0 {
		l.seconds = 1e-9
	}
	var parts []string
	for fn := byte(0); fn < board.FuncCount; fn++ {
		if n := l.byFunc[fn]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", board.FuncName(fn), n))
		}
	}
	frames := int(l.stats.Frames)
	summary := fmt.Sprintf("%d bytes, %d frames in %.1f s", l.bytes, frames, l.seconds)
	if len(parts) > 0 {
		summary += ": " + strings.Join(parts, ", ")
	}
	switch {
	case l.bytes == 0:
		r.add(area, "board talking", Fail, "silent: "+summary,
			"the board sends IMU frames from power-on: check its power switch and the cable, and that "+dev+" is the board (the LiDAR is a CH340 ttyUSB; the board a ttyACM)")
	case frames == 0:
		r.add(area, "board talking", Fail, "bytes but no valid frame: "+summary,
			"this is not the board, or not at 1000000 baud: the LiDAR's bytes look like this (see the LiDAR check); pass the board's device")
	default:
		r.add(area, "board talking", Pass, summary, "")
	}
	if frames == 0 {
		return
	}
	imu := float64(l.byFunc[board.FuncIMU]) / l.seconds
	st := Pass
	if imu < imuLowHz || imu > imuHighHz {
		st = Warn
	}
	if imu == 0 {
		st = Fail
	}
	r.add(area, "board IMU rate", st, fmt.Sprintf("%.1f Hz (expected %.0f-%.0f)", imu, imuLowHz, imuHighHz),
		"a slow IMU starves the stand judge and the contact reflex: check the USB link (a hub, a long cable) and the CPU load")
	errs := l.stats.BadChecksum + l.stats.UnknownFunc + uint64(l.bad)
	m := fmt.Sprintf("%d bad checksums, %d unknown functions, %d malformed, %d bytes skipped", l.stats.BadChecksum,
		l.stats.UnknownFunc, l.bad, l.stats.SkippedBytes)
	st = Pass
	if errs > 0 || l.stats.SkippedBytes > 0 {
		st = Warn
	}
	r.add(area, "board parse errors", st, m, "a noisy link: try another cable or port; keep the USB cable away from the motor wires")
	if l.battery == nil {
		st := Warn
		if l.seconds < 1.5 {
			st = Skip
		}
		r.add(area, "board battery", st, fmt.Sprintf("no battery report in %.1f s (the board sends one a second)", l.seconds),
			"listen longer (--listen 3s); a board that never reports its battery needs its firmware checked")
		return
	}
	r.add(area, "board battery", Pass, fmt.Sprintf("%.2f V", l.battery.Volts()), "")
}

// checkLidar: the LiDAR's device, its stable name, and its packets when the port is free.
func checkLidar(r *Report, o Options) {
	const area = "lidar"
	if o.Lidar == "" {
		r.add(area, "lidar device", Skip, "no LiDAR configured", "")
		return
	}
	d, ok := checkDevice(r, o, area, "lidar device", o.Lidar)
	if !ok {
		return
	}
	if fi, err := os.Lstat(o.Lidar); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		r.add(area, "lidar stable name", Pass, fmt.Sprintf("%s -> %s", o.Lidar, d.real), "")
	} else if !strings.HasPrefix(d.real, "/dev/pts/") {
		r.add(area, "lidar stable name", Warn, o.Lidar+" is the kernel's name, which changes when devices re-enumerate",
			"install deploy/60-rosorin-lidar.rules with your hub port (udevadm info -a -n "+o.Lidar+" | grep -m1 'KERNELS==\"[0-9]') and use /dev/lidar")
	}
	hs := checkHolders(r, area, "lidar port free", d)
	if len(hs) > 0 {
		if r.Checks[len(r.Checks)-1].Status == Pass {
			r.add(area, "lidar talking", Skip, "the driver's LiDAR reader holds the port: see \"driver scans\" below", "")
		}
		return
	}
	f, err := serialport.OpenLidar(o.Lidar)
	if err != nil {
		r.add(area, "lidar talking", Fail, "cannot open "+o.Lidar+": "+err.Error(), "see the checks above")
		return
	}
	defer f.Close()
	judgeLidar(r, listenLidar(f, o))
}

type lidarListen struct {
	seconds          float64
	bytes            int
	packets, rings   int
	samples, returns int
	stats            coind6.Stats
}

func listenLidar(f *os.File, o Options) lidarListen {
	var l lidarListen
	var p coind6.Parser
	start := o.Clock.Now()
	_ = f.SetReadDeadline(start.Add(o.Listen))
	buf := make([]byte, 4096)
	var samples [128]coind6.Sample
	for {
		n, err := f.Read(buf)
		l.bytes += n
		p.Feed(buf[:n], func(pkt []byte) {
			d, derr := coind6.DecodeInto(pkt, samples[:0])
			if derr != nil {
				return
			}
			l.packets++
			if d.RingStart() {
				l.rings++
			}
			for _, s := range d.Samples {
				l.samples++
				if s.DistMM > 0 {
					l.returns++
				}
			}
		})
		if err != nil {
			break
		}
	}
	l.seconds = o.Clock.Now().Sub(start).Seconds()
	l.stats = p.Stats()
	return l
}

func judgeLidar(r *Report, l lidarListen) {
	const area = "lidar"
	if l.seconds <= 0 {
		l.seconds = 1e-9
	}
	m := fmt.Sprintf("%d bytes, %d packets (%d bad checksums) in %.1f s", l.bytes, l.packets, l.stats.BadChecksum, l.seconds)
	switch {
	case l.bytes == 0:
		r.add(area, "lidar talking", Fail, "silent: "+m, "the COIN-D6 streams once powered: check its cable and the USB hub's power")
		return
	case l.packets == 0:
		r.add(area, "lidar talking", Fail, "bytes but no packet: "+m, "this is not the LiDAR (the board is a ttyACM), or the baud rate is wrong")
		return
	}
	r.add(area, "lidar talking", Pass, m, "")
	rev := float64(l.rings) / l.seconds
	st := Pass
	if rev < revLow || rev > revHigh {
		st = Warn
	}
	valid := 0.0
	if l.samples > 0 {
		valid = float64(l.returns) / float64(l.samples)
	}
	r.add(area, "lidar revolutions", st, fmt.Sprintf("%.1f rev/s (expected %.0f-%.0f), %.0f%% of %d beams returned", rev, revLow, revHigh, 100*valid, l.samples),
		"a slow or irregular spin: check the LiDAR's power (the hub) and that nothing rubs the head")
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }
