package ros2

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/protocol/rosmsg"
	"github.com/rosorin/rosorin/ros2/dds"
)

// /rosout: the bridge's, the driver's and the supervisor's log lines at INFO and above (docs/ros2.md,
// "/rosout").

const typeLog = "rcl_interfaces/msg/Log"

// rosoutQoS is rclcpp's /rosout publisher (Humble rcl): reliable, transient local, keep last 1000, lifespan 10 s.
var rosoutQoS = dds.QoS{Reliable: true, TransientLocal: true, Depth: 1000, Lifespan: 10 * time.Second}

// rosoutQueue bounds the records waiting for /rosout; a full queue drops (counted), never blocks a logger.
const rosoutQueue = 512

// SupervisorLogEnv is the variable naming the descriptor of the supervisor's records (driver/service sets it
// for its bridge child).
const SupervisorLogEnv = "ROSORIN_SUPERVISOR_LOG_FD"

// SupervisorLogFromEnv is the supervisor's log pipe when this process is its bridge child, else nil.
func SupervisorLogFromEnv() *os.File {
	fd, err := strconv.Atoi(os.Getenv(SupervisorLogEnv))
	os.Unsetenv(SupervisorLogEnv) // not for this process's children
	if err != nil || fd < 3 {
		return nil
	}
	return os.NewFile(uintptr(fd), "supervisor-log")
}

// ROSLevel is rcl_interfaces/msg/Log's level of a slog level: below INFO DEBUG, then INFO, WARN, ERROR; FATAL
// from ERROR+4 up.
func ROSLevel(l slog.Level) uint8 {
	switch {
	case l < slog.LevelInfo:
		return rosmsg.LogDebug
	case l < slog.LevelWarn:
		return rosmsg.LogInfo
	case l < slog.LevelError:
		return rosmsg.LogWarn
	case l < slog.LevelError+4:
		return rosmsg.LogError
	}
	return rosmsg.LogFatal
}

// LoggerName is rcl's logger name of a node: the namespace without its leading slash, dots for slashes,
// then the name ("rosorin_board_driver", "r1.rosorin_board_driver").
func LoggerName(ns, name string) string {
	ns = strings.Trim(ns, "/")
	if ns == "" {
		return name
	}
	return strings.ReplaceAll(ns, "/", ".") + "." + name
}

// LogMsg is r as a /rosout message of logger name.
func LogMsg(name string, r api.LogRecord) *rosmsg.Log { return logMsg(name, r, clock.Real{}) }

// logMsg is LogMsg stamping a record without a usable stamp from c.
func logMsg(name string, r api.LogRecord, c clock.Clock) *rosmsg.Log {
	line := r.Line
	if line < 0 {
		line = 0
	}
	ns := r.Stamp.UnixNano()
	if r.Stamp.IsZero() || ns < 0 { // a record without a usable stamp: now
		ns = c.Now().UnixNano()
	}
	return &rosmsg.Log{Stamp: rosmsg.TimeFromNanos(ns), Level: ROSLevel(r.Level), Name: name,
		Msg: r.Msg, File: r.File, Function: r.Function, Line: uint32(line)}
}

type rosout struct {
	pub     *Publisher
	name    string
	ch      chan api.LogRecord
	dropped atomic.Uint64
	clk     clock.Clock // the bridge's
}

func (o *rosout) put(r api.LogRecord) {
	select {
	case o.ch <- r:
	default:
		o.dropped.Add(1)
	}
}

// run publishes the queued records until ctx ends. A failed write is counted, not logged (that line would
// come back here).
func (o *rosout) run(ctx context.Context, st *Stats) {
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-o.ch:
			if err := o.pub.Publish(logMsg(o.name, r, o.clk)); err != nil {
				st.PublishErrors.Add(1)
			}
		}
	}
}

// followDriverLog forwards the driver's log topic to /rosout, reconnecting while the driver is away; a
// record already forwarded (the backlog a reconnection sends again) is skipped by its stamp.
func (b *Bridge) followDriverLog(ctx context.Context) {
	var last time.Time
	for ctx.Err() == nil {
		_ = b.c.FollowLog(ctx, func(r api.LogRecord) error {
			if !r.Stamp.After(last) {
				return nil
			}
			last = r.Stamp
			b.rosout.put(r)
			return nil
		})
		_ = b.cfg.Clock.Sleep(ctx, 200*time.Millisecond)
	}
}

// readSupervisorLog forwards the supervisor's records (JSON lines on f) to /rosout until f ends.
func (b *Bridge) readSupervisorLog(f *os.File) {
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var r api.LogRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			continue
		}
		b.rosout.put(r)
	}
}
