package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rosorin/rosorin/clock"
)

// The control socket speaks one request per line and answers one JSON line:
//
//	<fault>   e.g. "usb-drop=3s", "hang=off" (FaultHelp)  -> {"ok":true} or {"error":"..."}
//	truth                                                  -> the Truth object
//	stats                                                  -> the Stats object
//	ping                                                   -> {"ok":true}

// Apply parses a fault in the CLI syntax and applies it (or schedules it, with an @DELAY suffix).
func (s *Sim) Apply(fault string) error {
	f, err := ParseFault(fault)
	if err != nil {
		return err
	}
	return s.applyF(f)
}

// applyF applies f on the core and republishes the truth, so a Truth() right after shows the fault.
func (s *Sim) applyF(f Fault) error {
	var refused error
	if err := s.do(func(c *core) {
		now := s.clk.Now()
		refused = c.applyFault(f, now)
		c.publish(now)
	}); err != nil {
		return err
	}
	return refused
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// USBDrop makes the board's device disappear for d; a new pty appears at the same path afterwards. The
// wheels keep their speed meanwhile (no watchdog).
func (s *Sim) USBDrop(d time.Duration) error {
	return s.applyF(Fault{Kind: FaultUSBDrop, Dur: d, Text: "usb-drop=" + d.String()})
}

// Hang stops (or resumes) the firmware's reading and sending; the wheels keep their speed.
func (s *Sim) Hang(on bool) error {
	return s.applyF(Fault{Kind: FaultHang, On: on, Text: "hang=" + onOff(on)})
}

// BoardReset restarts the board's firmware with its USB port open: the wheels' targets go to zero at once,
// and for boot the board sends nothing and drops what it is sent; then it streams again and obeys the motor
// frames received after the boot. boot must be in (0, 1h].
func (s *Sim) BoardReset(boot time.Duration) error {
	if boot <= 0 || boot > time.Hour {
		return fmt.Errorf("sim: board-reset boot time %v outside (0, 1h]", boot)
	}
	return s.applyF(Fault{Kind: FaultBoardReset, Dur: boot, Text: "board-reset=" + boot.String()})
}

// IgnoreMotor makes the board receive motor frames without obeying them (a broken stop).
func (s *Sim) IgnoreMotor(on bool) error {
	return s.applyF(Fault{Kind: FaultIgnoreMotor, On: on, Text: "ignore-motor=" + onOff(on)})
}

// LidarSilent keeps the LiDAR port open but sends no bytes.
func (s *Sim) LidarSilent(on bool) error {
	return s.applyF(Fault{Kind: FaultLidarSilent, On: on, Text: "lidar-silent=" + onOff(on)})
}

// LidarUnplug removes the LiDAR device for d; a new one appears at the same path afterwards.
func (s *Sim) LidarUnplug(d time.Duration) error {
	return s.applyF(Fault{Kind: FaultLidarUnplug, Dur: d, Text: "lidar-unplug=" + d.String()})
}

// Corrupt sets the per-byte corruption probability in both directions (0 switches it off).
func (s *Sim) Corrupt(toBoard, fromBoard float64) error {
	for _, r := range []float64{toBoard, fromBoard} {
		if !(r >= 0 && r <= 1) {
			return fmt.Errorf("sim: corruption rate %v outside [0, 1]", r)
		}
	}
	if err := s.applyF(Fault{Kind: FaultCorrupt, ToBoard: true, Rate: toBoard, Text: fmt.Sprintf("corrupt=to-board:%g", toBoard)}); err != nil {
		return err
	}
	return s.applyF(Fault{Kind: FaultCorrupt, Rate: fromBoard, Text: fmt.Sprintf("corrupt=from-board:%g", fromBoard)})
}

// HoldButton sends mask in the next frames gamepad reports (20 Hz; sent even if no pad is connected,
// since a pressed button implies a pad).
func (s *Sim) HoldButton(mask uint16, frames int) error {
	if frames < 1 {
		frames = 1
	}
	return s.applyF(Fault{Kind: FaultButton, Mask: mask, Frames: frames, Text: fmt.Sprintf("button=0x%04x:%d", mask, frames)})
}

// PadConnected starts or stops the 20 Hz gamepad reports.
func (s *Sim) PadConnected(on bool) error {
	return s.applyF(Fault{Kind: FaultPad, On: on, Text: "pad=" + onOff(on)})
}

// PadSticks sets the stick axes (int8 as the board sends them, raw/127 gives -1..1; the driver maps LY > 0 to
// +vx, motion.JoyToTwist). They are held until changed and carried by every gamepad report, that is while the
// pad is connected or a button is held; with neither, nothing is sent. PadSticks(0, 0, 0, 0) centres them.
func (s *Sim) PadSticks(lx, ly, rx, ry int8) error {
	return s.applyF(Fault{Kind: FaultSticks, Sticks: [4]int8{lx, ly, rx, ry}, Text: fmt.Sprintf("sticks=%d,%d,%d,%d", lx, ly, rx, ry)})
}

// KeyEvent sends one key frame (id 1 or 2, event bits as board.KeyPressed ...).
func (s *Sim) KeyEvent(id, event uint8) error {
	return s.applyF(Fault{Kind: FaultKey, ID: id, Event: event, Text: fmt.Sprintf("key=%d:0x%02x", id, event)})
}

// BatteryStep shifts the battery voltage by mv (charger plugged +, unplugged -).
func (s *Sim) BatteryStep(mv int) error {
	return s.applyF(Fault{Kind: FaultBattery, MV: mv, Text: fmt.Sprintf("battery-step=%+d", mv)})
}

// Stall holds the body (as against an obstacle): the wheels keep turning, nothing moves.
func (s *Sim) Stall(on bool) error {
	return s.applyF(Fault{Kind: FaultStall, On: on, Text: "stall=" + onOff(on)})
}

// listenControl binds the control socket, replacing a stale one but refusing to steal a live sim's.
func listenControl(path string) (net.Listener, error) {
	if _, err := os.Stat(path); err == nil {
		if c, err := net.DialTimeout("unix", path, 300*time.Millisecond); err == nil {
			c.Close()
			return nil, fmt.Errorf("sim: another simulator is running with control socket %s; stop it or use another directory", path)
		}
		_ = os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("sim: control socket %s: %w", path, err)
	}
	return ln, nil
}

func (s *Sim) serveControl() {
	defer s.wg.Done()
	var conns sync.WaitGroup
	defer conns.Wait()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return // listener closed by Close
		}
		conns.Add(1)
		go func() {
			defer conns.Done()
			s.handleControl(conn)
		}()
	}
}

func (s *Sim) handleControl(conn net.Conn) {
	done := make(chan struct{})
	defer close(done)
	go func() { // Close ends idle connections too
		select {
		case <-s.ctx.Done():
			conn.Close()
		case <-done:
		}
	}()
	defer conn.Close()
	sc := bufio.NewScanner(conn)
	enc := json.NewEncoder(conn)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		var reply any
		switch line {
		case "":
			continue
		case "ping":
			reply = map[string]any{"ok": true}
		case "truth":
			reply = s.Truth()
		case "stats":
			reply = s.Stats()
		default:
			if err := s.Apply(line); err != nil {
				if errors.Is(err, ErrClosed) {
					return
				}
				reply = map[string]any{"error": err.Error()}
			} else {
				reply = map[string]any{"ok": true}
			}
		}
		if enc.Encode(reply) != nil {
			return
		}
	}
}

// SocketPath resolves the control socket from --socket (used as is) or --dir (DIR/sim.sock).
func SocketPath(dir, socket string) (string, error) {
	if socket != "" {
		return socket, nil
	}
	if dir != "" {
		return filepath.Join(dir, ControlName), nil
	}
	return "", errors.New("which simulator? give --dir DIR (as passed to run) or --socket PATH")
}

// Send sends one request to the sim at socket and prints the answer to w: JSON answers (truth, stats)
// indented, an {"ok":true} as "ok: REQUEST".
func Send(w io.Writer, socket, request string) error {
	b, err := Control(socket, request, 3*time.Second)
	if err != nil {
		return err
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, b, "", "  ") == nil && !bytes.HasPrefix(b, []byte(`{"ok"`)) {
		_, err = w.Write(pretty.Bytes())
		return err
	}
	_, err = fmt.Fprintf(w, "ok: %s\n", request)
	return err
}

// Control sends one request to a running sim's control socket and returns its JSON answer. An
// {"error": ...} answer is returned as an error.
func Control(socket, request string, timeout time.Duration) ([]byte, error) {
	conn, err := net.DialTimeout("unix", socket, timeout)
	if err != nil {
		return nil, fmt.Errorf("no simulator answers at %s (%w); start one with rosorin-sim run --dir DIR", socket, err)
	}
	defer conn.Close()
	// The socket's deadline is on the wall clock (clock.Real), whatever a sim's Config.Clock is.
	_ = conn.SetDeadline(clock.Real{}.Now().Add(timeout))
	if _, err := fmt.Fprintln(conn, request); err != nil {
		return nil, fmt.Errorf("send to %s: %w", socket, err)
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("no answer from %s: %w", socket, err)
	}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(line, &e) == nil && e.Error != "" {
		return nil, errors.New(e.Error)
	}
	return line, nil
}
