package ros2

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// FuzzFramesFrom: any configuration the driver could answer gives frames with no empty id, or an error.
func FuzzFramesFrom(f *testing.F) {
	f.Add([]byte(`{"base_frame_id":"base_link","lidar_frame_id":"laser","imu_frame_id":"imu_link","odom_frame_id":"odom","publish_odom_tf":true}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"base_frame_id":null}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		fr, err := FramesFrom(raw)
		if err != nil {
			return
		}
		if fr.Base == "" || fr.Lidar == "" || fr.IMU == "" || fr.Odom == "" {
			t.Fatalf("accepted frames with an empty id: %+v", fr)
		}
		m := StaticTransforms(fr, time.Unix(1, 0))
		var back rosmsg.TFMessage
		if err := cdr.Unmarshal(cdr.Marshal(m), &back); err != nil {
			t.Fatalf("the static transforms of %+v do not round-trip: %v", fr, err)
		}
	})
}

// FuzzLogRecord: a record line from the driver or the supervisor either does not decode or becomes a /rosout
// message that encodes and decodes again (a string with a NUL cannot be carried: CDR strings end at it).
func FuzzLogRecord(f *testing.F) {
	f.Add([]byte(`{"stamp":"2026-12-02T07:00:00Z","level":"WARN","msg":"E-STOP latched: x proc=driver","file":"run.go","function":"driver.latch","line":327}`))
	f.Add([]byte(`{"level":"ERROR+8","line":-5}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var r api.LogRecord
		if json.Unmarshal(raw, &r) != nil {
			return
		}
		m := LogMsg(NodeName, r)
		var back rosmsg.Log
		err := cdr.Unmarshal(cdr.Marshal(m), &back)
		if err != nil {
			for _, s := range []string{m.Msg, m.File, m.Function} {
				for i := 0; i < len(s); i++ {
					if s[i] == 0 {
						return
					}
				}
			}
			t.Fatalf("the /rosout message of %q does not decode: %v", raw, err)
		}
		if back.Level < rosmsg.LogDebug || back.Level > rosmsg.LogFatal || back.Level%10 != 0 {
			t.Fatalf("level %d", back.Level)
		}
	})
}
