package sim

import (
	"encoding/hex"
	"encoding/json"
	"time"
)

// Truth is the simulated ground truth at one instant. For tests only: a judge must never read it.
type Truth struct {
	T         time.Time  `json:"t"`
	World     string     `json:"world"`
	TargetRPS [4]float64 `json:"target_rps"` // last commanded wire rps, ids 0..3
	WheelRPS  [4]float64 `json:"wheel_rps"`  // actual wheel speeds
	BodyVel   [3]float64 `json:"body_vel"`   // vx m/s, vy m/s, wz rad/s (0 on the stand)
	Pose      [3]float64 `json:"pose"`       // x m, y m, yaw rad in the room
	Stalled   bool       `json:"stalled"`    // wheels turning, body not moving (pinned or against a wall)
	BatteryMV uint16     `json:"battery_mv"` // last reported
	GyroBias  [3]float64 `json:"gyro_bias_dps"`
	Faults    []string   `json:"faults,omitempty"` // active switches
	// Brake is the brake factor in effect (1 normal; weak-brake's FACTOR, worn by wear-brake), BrakeStops
	// the stops seen since wear-brake started (Sim.BrakeWear).
	Brake      float64 `json:"brake"`
	BrakeStops int     `json:"brake_stops,omitempty"`
}

// Received is one valid frame the board received, with its arrival time.
type Received struct {
	Seq     int       `json:"seq"`
	T       time.Time `json:"t"`
	Func    byte      `json:"func"`
	Payload []byte    `json:"payload"`
}

type truthLine struct {
	Kind string `json:"kind"` // truth | rx | event
	*Truth
	RX    *rxLine    `json:"rx,omitempty"`
	Event string     `json:"event,omitempty"`
	ET    *time.Time `json:"et,omitempty"`
}

type rxLine struct {
	Seq     int       `json:"seq"`
	T       time.Time `json:"t"`
	Func    byte      `json:"func"`
	Payload string    `json:"payload"` // hex
}

func marshalTruth(t Truth) []byte {
	b, _ := json.Marshal(truthLine{Kind: "truth", Truth: &t})
	return append(b, '\n')
}

func marshalRx(r Received) []byte {
	b, _ := json.Marshal(truthLine{Kind: "rx", RX: &rxLine{r.Seq, r.T, r.Func, hex.EncodeToString(r.Payload)}})
	return append(b, '\n')
}

func marshalEvent(t time.Time, ev string) []byte {
	b, _ := json.Marshal(truthLine{Kind: "event", Event: ev, ET: &t})
	return append(b, '\n')
}
