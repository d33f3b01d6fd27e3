package motion

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

const imuPeriod = time.Second / 110 // the board streams the IMU at about 110 Hz

// noise is a deterministic small wobble (std about a/sqrt(2)).
func noise(i int, a float64) float64 { return a * math.Sin(float64(i)*1.7) }

func TestGyroBiasTracksOnlyWhenStillAndSettled(t *testing.T) {
	cfg := DefaultGyroBiasConfig()
	cases := []struct {
		name      string
		still     bool
		reading   [3]float64
		seconds   float64
		wantMoved bool
	}{
		{"driving: frozen", false, [3]float64{0.3, -0.3, 0.2}, 10, false},
		{"still but settling (0.9 s): frozen", true, [3]float64{0.3, -0.3, 0.2}, 0.9, false},
		{"still and settled: follows", true, [3]float64{0.3, -0.3, 0.2}, 10, true},
		{"10 deg/s turn by hand while still: ignored", true, [3]float64{0, 0, 10}, 10, false},
		{"0.6 deg/s on one axis (over max dev): ignored", true, [3]float64{0.6, 0, 0}, 10, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := NewGyroBias(cfg, [3]float64{})
			g.SetCommandedStill(c.still, t0)
			n := int(c.seconds * 110)
			var out [3]float64
			for i := 0; i <= n; i++ {
				now := t0.Add(time.Duration(i) * imuPeriod)
				g.SetCommandedStill(c.still, now) // called every tick: must not restart the settle time
				var err error
				if out, err = g.Update(c.reading, now); err != nil {
					t.Fatal(err)
				}
			}
			b := g.Bias()
			moved := b != [3]float64{}
			if moved != c.wantMoved {
				t.Fatalf("bias %v moved=%v, want moved=%v", b, moved, c.wantMoved)
			}
			for i := range out {
				if !near(out[i], c.reading[i]-b[i], 1e-12) {
					t.Fatalf("corrected %v, want reading - bias", out)
				}
			}
			if c.wantMoved {
				// 9 s of tracking (after the 1 s settle) with tau 20 s: 1 - exp(-9/20) of the way.
				frac := 1 - math.Exp(-(c.seconds-1)/20)
				for i := range b {
					if !near(b[i], c.reading[i]*frac, 0.01*math.Abs(c.reading[i])) {
						t.Fatalf("axis %d bias %v, want about %v", i, b[i], c.reading[i]*frac)
					}
				}
			}
		})
	}
	t.Run("motion restarts the settle time", func(t *testing.T) {
		g := NewGyroBias(cfg, [3]float64{})
		g.SetCommandedStill(true, t0)
		if g.Tracking(t0.Add(999 * time.Millisecond)) {
			t.Fatal("tracking before settle")
		}
		if !g.Tracking(t0.Add(time.Second)) {
			t.Fatal("not tracking at exactly settle")
		}
		g.SetCommandedStill(false, at(2))
		g.SetCommandedStill(true, at(2.5))
		if g.Tracking(at(3.4)) || !g.Tracking(at(3.5)) {
			t.Fatal("settle did not restart after motion")
		}
	})
	t.Run("non-finite sample counted and skipped", func(t *testing.T) {
		g := NewGyroBias(cfg, [3]float64{1, 2, 3})
		if _, err := g.Update([3]float64{math.NaN(), 0, 0}, t0); !errors.Is(err, ErrNonFinite) {
			t.Fatalf("err %v", err)
		}
		if g.Rejected() != 1 || g.Bias() != [3]float64{1, 2, 3} {
			t.Fatalf("rejected %d bias %v", g.Rejected(), g.Bias())
		}
	})
}

func TestGyroCalibrator(t *testing.T) {
	bias := [3]float64{-1.681, -1.553, 0.048} // the robot's calibration line, 2026-09-27
	cases := []struct {
		name   string
		sample func(i int) [3]float64
		still  bool
	}{
		{"still (std about 0.05 deg/s)", func(i int) [3]float64 {
			return [3]float64{bias[0] + noise(i, 0.07), bias[1] + noise(i+3, 0.07), bias[2] + noise(i+7, 0.05)}
		}, true},
		{"moved by hand (turning 2 deg/s)", func(i int) [3]float64 {
			return [3]float64{bias[0], bias[1], bias[2] + 2*math.Sin(float64(i)/30)}
		}, false},
		{"one bump on x", func(i int) [3]float64 {
			if i > 100 && i < 130 {
				return [3]float64{bias[0] + 5, bias[1], bias[2]}
			}
			return bias
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cal := NewGyroCalibrator(DefaultGyroCalibConfig())
			doneAt := -1
			for i := 0; i < 400; i++ {
				if cal.Add(c.sample(i), t0.Add(time.Duration(i)*imuPeriod)) {
					if doneAt >= 0 {
						t.Fatal("done reported twice")
					}
					doneAt = i
				}
			}
			// The window closes on the first sample at or after 3 s: 331 x 9.090909 ms (the period is truncated
			// to whole nanoseconds, so sample 330 lands 30 ns short of 3 s).
			if doneAt != 331 {
				t.Fatalf("done at sample %d, want 331", doneAt)
			}
			r := cal.Result()
			if r.Samples != 332 || r.Still != c.still {
				t.Fatalf("result %+v", r)
			}
			if c.still {
				for i := range bias {
					if !near(r.Bias[i], bias[i], 0.01) || r.Std[i] > 0.06 || r.Warning != "" {
						t.Fatalf("result %+v, want bias about %v", r, bias)
					}
				}
			} else if r.Bias != [3]float64{} || !strings.Contains(r.Warning, "not stationary") || !strings.Contains(r.Warning, "uncorrected") {
				t.Fatalf("moving result %+v, want zero bias and a warning", r)
			}
		})
	}
	t.Run("population std like the seed (statistics.pstdev)", func(t *testing.T) {
		cal := NewGyroCalibrator(GyroCalibConfig{Window: 3 * time.Second, MaxStdDPS: 0.3})
		vals := []float64{1, 2, 3, 4}
		for i, v := range vals {
			cal.Add([3]float64{v, 0, 0}, t0.Add(time.Duration(i)*time.Second))
		}
		if r := cal.Result(); !near(r.Std[0], math.Sqrt(1.25), 1e-12) || r.Mean[0] != 2.5 || r.Still {
			t.Fatalf("result %+v, want pstdev sqrt(1.25) and not still", r)
		}
	})
	t.Run("non-finite skipped, window starts at the first good sample", func(t *testing.T) {
		cal := NewGyroCalibrator(DefaultGyroCalibConfig())
		cal.Add([3]float64{math.Inf(1), 0, 0}, t0)
		if cal.Rejected() != 1 || cal.Done() {
			t.Fatal("bad sample not skipped")
		}
		if cal.Add([3]float64{}, at(5)) || !cal.Add([3]float64{}, at(8)) {
			t.Fatal("window did not start at the first good sample")
		}
	})
}

func TestIMUConversion(t *testing.T) {
	c := DefaultIMUCalib()
	c.AccelOffsetG = [3]float64{0.0460, -0.0635, -0.0501}
	c.AccelScale = [3]float64{1.0058, 0.9964, 1.0076}
	s, err := ConvertIMU([3]float64{0.0460, -0.0635, 0.9499}, [3]float64{180, -90, 0}, c)
	if err != nil {
		t.Fatal(err)
	}
	if s.Accel[0] != 0 || s.Accel[1] != 0 || !near(s.Accel[2], 1.0*1.0076*9.80665, 1e-12) {
		t.Fatalf("accel %v", s.Accel)
	}
	if !near(s.Gyro[0], math.Pi, 1e-15) || !near(s.Gyro[1], -math.Pi/2, 1e-15) || s.Gyro[2] != 0 {
		t.Fatalf("gyro %v", s.Gyro)
	}
	if s.OrientationCov[0] != -1 {
		t.Fatalf("orientation cov %v, want [0] = -1", s.OrientationCov)
	}
	v := 0.0012 * 0.0012
	for i, x := range s.GyroCov {
		want := 0.0
		if i == 0 || i == 4 || i == 8 {
			want = v
		}
		if !near(x, want, 1e-18) {
			t.Fatalf("gyro cov %v", s.GyroCov)
		}
	}
	if s.AccelCov != [9]float64{} {
		t.Fatalf("accel cov %v, want zeros as the seed", s.AccelCov)
	}
	if _, err := ConvertIMU([3]float64{math.NaN(), 0, 1}, [3]float64{}, c); !errors.Is(err, ErrNonFinite) {
		t.Fatalf("NaN accel: %v", err)
	}
}
