package proofrec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// What a proof recording holds (docs/reports.md): the run's events, every evidence line, the judges' inputs
// and the IMU samples the stand judge read, on the channels below, and the JSON record at the end.
const (
	// MetaName is the metadata record written at the start: kind, t0_unix_ns (the run's timeline origin),
	// command line, toolkit version.
	MetaName = "rosorin.proof"
	// RecordMetaName is the metadata record written at the end: key "json" holds the run's --json record.
	RecordMetaName = "rosorin.proof.record"
	// TopicEvents carries the proof's events as JSON (std_msgs/msg/String): spin-up, trigger, judged, result.
	TopicEvents = "/proof/events"
	// TopicLog carries every evidence-log line (std_msgs/msg/String), driver states and commands among them.
	TopicLog = "/proof/log"
	// TopicInputs carries each judge call's input as JSON (std_msgs/msg/String): what an offline re-judge needs
	// besides the samples.
	TopicInputs = "/proof/judge_input"
	// TopicJudgedIMU carries the samples the stand judge read (sensor_msgs/msg/Imu, rad/s, header stamp = the
	// sample's time on the run's timeline plus t0), each once, in the order the judge read them; a judge
	// input names its samples by their MCAP sequence numbers on this channel (Writer.IMU).
	TopicJudgedIMU = "/proof/imu"
)

// Writer is a proof run's MCAP recording (capture/mcapfile: crash-safe, finished into an indexed
// file by Close). A nil *Writer records nothing, so a run with --no-record passes nil. Safe for
// concurrent use. The first write error stops the recording, loudly once through OnError; the proof goes on.
//
// Every channel's log times are non-decreasing in file order: a message whose time is before the channel's
// previous one (two writers that read the clock in one order and took the lock in the other) is logged at
// the previous time; an IMU sample keeps its own time in its header stamp, which is what a re-judge reads.
type Writer struct {
	mu      sync.Mutex
	rec     *mcapfile.Recorder
	path    string
	t0ns    int64
	ch      map[string]*mcapfile.Channel
	last    map[string]int64 // each channel's last log time (ns)
	imu     []imuKey         // the samples on /proof/imu, by sequence
	imuAt   map[imuKey][]uint32
	err     error
	OnError func(error) // called once with the error that stopped the recording (may be nil)
}

// imuKey is a recorded sample: its stamp and its gyro.
type imuKey struct {
	ns   int64
	gyro [3]float64
}

// PathBeside is the recording's name beside an evidence log: the same name, .mcap.
func PathBeside(evidenceLog string) string {
	if n := len(evidenceLog); n > 4 && evidenceLog[n-4:] == ".log" {
		return evidenceLog[:n-4] + ".mcap"
	}
	return evidenceLog + ".mcap"
}

// Create starts a recording at path whose timeline starts at t0 (the evidence log's start).
// meta is added to the rosorin.proof metadata record.
func Create(path string, t0 time.Time, meta map[string]string) (*Writer, error) {
	md := map[string]string{"t0_unix_ns": strconv.FormatInt(t0.UnixNano(), 10)}
	for k, v := range meta {
		md[k] = v
	}
	rec, err := mcapfile.Create(path, mcapfile.Options{})
	if err != nil {
		return nil, err
	}
	p := &Writer{rec: rec, path: path, t0ns: t0.UnixNano(), ch: map[string]*mcapfile.Channel{},
		last: map[string]int64{}, imuAt: map[imuKey][]uint32{}}
	err = rec.WriteMetadata(MetaName, md)
	for _, c := range []struct{ topic, typ string }{{TopicEvents, "std_msgs/msg/String"}, {TopicInputs, "std_msgs/msg/String"},
		{TopicJudgedIMU, "sensor_msgs/msg/Imu"}, {TopicLog, "std_msgs/msg/String"}} {
		if err != nil {
			break
		}
		p.ch[c.topic], err = rec.MessageChannel(c.topic, c.typ)
	}
	if err != nil {
		rec.Close()
		os.Remove(path)
		return nil, fmt.Errorf("proof recording %s: %w", path, err)
	}
	return p, nil
}

// Path is the finished file's path.
func (p *Writer) Path() string {
	if p == nil {
		return ""
	}
	return p.path
}

func (p *Writer) failLocked(err error) {
	if err == nil || p.err != nil {
		return
	}
	p.err = err
	if p.OnError != nil {
		p.OnError(err)
	}
}

func (p *Writer) text(topic string, at time.Time, s string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return
	}
	p.failLocked(p.writeLocked(topic, at.UnixNano(), &rosmsg.String{Data: s}))
}

// writeLocked writes m on topic at ns, or at the channel's previous log time if that is later.
func (p *Writer) writeLocked(topic string, ns int64, m rosmsg.Message) error {
	if last, ok := p.last[topic]; ok && ns < last {
		ns = last
	}
	if err := p.rec.WriteMessage(p.ch[topic], time.Unix(0, ns), m); err != nil {
		return err
	}
	p.last[topic] = ns
	return nil
}

// Line records one evidence-log line.
func (p *Writer) Line(at time.Time, line string) { p.text(TopicLog, at, line) }

// Event records v as JSON on /proof/events.
func (p *Writer) Event(at time.Time, v any) {
	if p == nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"event": "unencodable", "error": err.Error()})
	}
	p.text(TopicEvents, at, string(b))
}

// Input records v, a judge's input, as JSON on /proof/judge_input.
func (p *Writer) Input(at time.Time, v any) error {
	if p == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	p.text(TopicInputs, at, string(b))
	return nil
}

// StampNs is the header stamp and log time of a sample at t seconds on the run's timeline: t0 plus t
// rounded to the nanosecond. The proofs' times are durations in nanoseconds converted with Seconds, which
// this inverts exactly (SampleTime(StampNs(t)) == t for every t that came from a Duration).
func StampNs(t0ns int64, t float64) int64 { return t0ns + int64(math.Round(t*1e9)) }

// SampleTime is the judge's time of a sample stamped ns: the same float64 the live run computed.
func SampleTime(t0ns, ns int64) float64 { return time.Duration(ns - t0ns).Seconds() }

// IMU records judged samples (time on the run's timeline, gyro rad/s) and returns the sequence numbers
// that name them: n samples from first. inexact counts samples whose time does not survive the nanosecond
// stamp (never for a live run's times; a re-judge of those would differ).
//
// Samples already on the channel are named, not written again: two judge calls of one path read the same
// stream (the scan-loss path's release check reads the samples its stop judge read, or a prefix of them),
// and the recording once held 605 of its 1760 samples twice, 5.5 s back in log time (issue 17). So when the
// first samples are a run already recorded that reaches the channel's end, first is that run's start and
// only the rest is written. Samples that are recorded but not such a run are written again, whole (no proof
// does that: every judge call reads one stream from the path's start).
func (p *Writer) IMU(t []float64, gyro [][3]float64) (first uint32, n uint32, inexact int) {
	if p == nil {
		return 0, 0, 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	first = uint32(len(p.imu))
	if p.err != nil {
		return first, 0, 0
	}
	keys := make([]imuKey, len(t))
	for i := range t {
		ns := StampNs(p.t0ns, t[i])
		if SampleTime(p.t0ns, ns) != t[i] {
			inexact++
		}
		keys[i] = imuKey{ns, gyro[i]}
	}
	known := 0
	if len(keys) > 0 {
		for _, s := range p.imuAt[keys[0]] {
			k := 0
			for k < len(keys) && int(s)+k < len(p.imu) && p.imu[int(s)+k] == keys[k] {
				k++
			}
			if k == len(keys) || int(s)+k == len(p.imu) {
				first, known = s, k
				break
			}
		}
	}
	n = uint32(known)
	for _, k := range keys[known:] {
		m := rosmsg.ImuOf(rosmsg.IMUReading{Stamp: rosmsg.TimeFromNanos(k.ns), FrameID: "imu_link", Gyro: k.gyro, NoAccel: true})
		if err := p.writeLocked(TopicJudgedIMU, k.ns, m); err != nil {
			p.failLocked(err)
			return first, n, inexact
		}
		p.imuAt[k] = append(p.imuAt[k], uint32(len(p.imu)))
		p.imu = append(p.imu, k)
		n++
	}
	return first, n, inexact
}

// Attach writes the run's JSON record as the rosorin.proof.record metadata record.
func (p *Writer) Attach(record []byte) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return p.err
	}
	err := p.rec.WriteMetadata(RecordMetaName, map[string]string{"json": string(record)})
	p.failLocked(err)
	return err
}

// Err is the error that stopped the recording, or nil.
func (p *Writer) Err() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Close finishes the file (indexed, with statistics). Idempotent: a second Close returns nil.
func (p *Writer) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	rec := p.rec
	p.rec = nil
	if p.err == nil && rec == nil {
		p.err = errors.New("recording closed")
	}
	p.mu.Unlock()
	if rec == nil {
		return nil
	}
	return rec.Close()
}

// Message is one message of a text channel: its log time and its text.
type Message struct {
	LogTime uint64
	Text    string
}

// Sample is one recorded judged sample.
type Sample struct {
	T    float64 // the run's timeline (s)
	Gyro [3]float64
}

// File is what a proof recording holds, read back.
type File struct {
	Meta   map[string]string // the rosorin.proof record
	T0ns   int64
	Events []Message
	Inputs []Message
	Lines  int               // evidence lines (not kept: a re-judge does not read them)
	IMU    map[uint32]Sample // by MCAP sequence on /proof/imu
	Record []byte            // the JSON record, nil when the run did not get to write it
	Walk   mcapfile.Walk     // how the file ended (a cut file reads to the cut)
}

// Samples returns the n recorded samples from sequence first, or an error naming how many are missing.
func (f *File) Samples(first, n uint32) ([]Sample, error) {
	if n > uint32(len(f.IMU)) {
		return nil, fmt.Errorf("the judge read %d samples from #%d; the recording holds %d in all (cut or damaged file)", n, first, len(f.IMU))
	}
	out := make([]Sample, n)
	missing := 0
	for i := range out {
		s, ok := f.IMU[first+uint32(i)]
		if !ok {
			missing++
		}
		out[i] = s
	}
	if missing > 0 {
		return nil, fmt.Errorf("%d of the %d samples the judge read (from #%d) are not in the recording (cut or damaged file)", missing, n, first)
	}
	return out, nil
}

// maxProofText bounds one text message a reader accepts (a hostile file could claim gigabytes).
const maxProofText = 16 << 20

// Read reads a proof recording (finished, or a cut .part: it reads to the cut). It fails on a
// file that is not MCAP or not a proof recording; channels it does not know are skipped.
func Read(r io.Reader) (*File, error) {
	f := &File{IMU: map[uint32]Sample{}, T0ns: math.MinInt64}
	topics := map[uint16]string{}
	var imu rosmsg.Imu
	var str rosmsg.String
	walk, err := mcapfile.Read(r, mcapfile.Visitor{
		Channel: func(c *mcap.Channel) error {
			topics[c.ID] = c.Topic
			return nil
		},
		Metadata: func(m *mcap.Metadata) error {
			switch m.Name {
			case MetaName:
				f.Meta = m.Metadata
				t0, err := strconv.ParseInt(m.Metadata["t0_unix_ns"], 10, 64)
				if err != nil {
					return fmt.Errorf("metadata %s: t0_unix_ns %q is not a number", MetaName, m.Metadata["t0_unix_ns"])
				}
				f.T0ns = t0
			case RecordMetaName:
				f.Record = []byte(m.Metadata["json"])
			}
			return nil
		},
		Message: func(m *mcap.Message) error {
			topic := topics[m.ChannelID]
			switch topic {
			case TopicEvents, TopicInputs, TopicLog:
				if len(m.Data) > maxProofText {
					return fmt.Errorf("%s message of %d bytes is larger than any proof writes", topic, len(m.Data))
				}
				if topic == TopicLog {
					f.Lines++
					return nil
				}
				if err := cdr.Unmarshal(m.Data, &str); err != nil {
					return fmt.Errorf("%s message %d: %w", topic, m.Sequence, err)
				}
				pm := Message{LogTime: m.LogTime, Text: str.Data}
				if topic == TopicEvents {
					f.Events = append(f.Events, pm)
				} else {
					f.Inputs = append(f.Inputs, pm)
				}
			case TopicJudgedIMU:
				if f.T0ns == math.MinInt64 {
					return fmt.Errorf("IMU sample before the %s metadata record: not a proof recording", MetaName)
				}
				if err := cdr.Unmarshal(m.Data, &imu); err != nil {
					return fmt.Errorf("%s message %d: %w", topic, m.Sequence, err)
				}
				v := imu.AngularVelocity
				f.IMU[m.Sequence] = Sample{T: SampleTime(f.T0ns, imu.Header.Stamp.Nanos()), Gyro: [3]float64{v.X, v.Y, v.Z}}
			}
			return nil
		},
	})
	f.Walk = walk
	if err != nil {
		return nil, err
	}
	if f.Meta == nil {
		return nil, fmt.Errorf("no %s metadata record: not a proof recording (a serial capture? try capture info)", MetaName)
	}
	return f, nil
}
