package replay

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"time"

	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/scanmatch"
)

// OdomLine is one revolution's line of `capture odom` (one JSON object per line).
type OdomLine struct {
	T          float64  `json:"t"`
	X          *float64 `json:"x,omitempty"`
	Y          *float64 `json:"y,omitempty"`
	Yaw        *float64 `json:"yaw,omitempty"`
	Degenerate *bool    `json:"degenerate,omitempty"`
	Valid      int      `json:"valid"`
	Error      string   `json:"error,omitempty"`
}

// OdomRaw runs the odometry over the raw capture in r (LidarScansRaw) and writes one JSON line per
// complete revolution to w.
func OdomRaw(r io.Reader, w io.Writer) error {
	out, err := newOdomWriter(w)
	if err != nil {
		return err
	}
	return LidarScansRaw(r, out.scan)
}

// odomWriter runs the odometry over finished scans and writes their lines.
type odomWriter struct {
	odo   *scanmatch.Odometry
	enc   *json.Encoder
	first time.Time
	revs  int
}

func newOdomWriter(w io.Writer) (*odomWriter, error) {
	odo, err := scanmatch.New(scanmatch.DefaultConfig())
	if err != nil {
		return nil, err
	}
	return &odomWriter{odo: odo, enc: json.NewEncoder(w)}, nil
}

// scan matches one revolution and writes its line. A scan the odometry cannot use (scanmatch.ScanError) or
// whose stamp is not after the previous one (scanmatch.ErrStamp, a host clock step in a recording) gets an
// error line; anything else is returned.
func (o *odomWriter) scan(s coind6.Scan) error {
	o.revs++
	e, err := o.odo.Add(s, scanmatch.Aux{})
	line := OdomLine{Valid: e.Valid}
	var se *scanmatch.ScanError
	switch {
	case errors.As(err, &se), errors.Is(err, scanmatch.ErrStamp):
		mid := s.Stamp.Add(s.ScanTime / 2)
		if o.first.IsZero() {
			o.first = mid
		}
		line.T, line.Valid, line.Error = mid.Sub(o.first).Seconds(), s.ValidCount(), err.Error()
	case err != nil:
		return err
	default:
		if o.first.IsZero() {
			o.first = e.Time
		}
		x, y, yaw, deg := e.Pose.X, e.Pose.Y, e.Pose.Yaw, e.Degenerate
		line.T, line.X, line.Y, line.Yaw, line.Degenerate = e.Time.Sub(o.first).Seconds(), &x, &y, &yaw, &deg
	}
	line.T = math.Round(line.T*1e6) / 1e6
	return o.enc.Encode(line)
}

// OdomMCAP runs the odometry over the LiDAR channel of the MCAP capture in r (LidarScans: complete or
// cut, each revolution timed by its recorded log time) and writes one JSON line per complete revolution to w.
func OdomMCAP(r io.Reader, w io.Writer) (LidarScansResult, error) {
	out, err := newOdomWriter(w)
	if err != nil {
		return LidarScansResult{}, err
	}
	return LidarScans(r, out.scan)
}
