package config

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/rosorin/rosorin/driver/stopmon"
)

// StopMonitorLimits parses stop_monitor.limits: stopmon.ConfigLimits in YAML (flow or block). It is a string
// parameter, not a nested mapping, because a ROS parameter holds a bool, a number, a string or an array, and
// a kind's speed bands are none of those; "" is no configured limits (nil).
func (c Config) StopMonitorConfigLimits() (stopmon.ConfigLimits, error) {
	if c.StopMonitorLimits == "" {
		return nil, nil
	}
	var l stopmon.ConfigLimits
	if err := yaml.Unmarshal([]byte(c.StopMonitorLimits), &l); err != nil {
		return nil, fmt.Errorf("not YAML of per-kind limits ({estop: {max_still_s: 0.6}}): %v", err)
	}
	return l, nil
}

// StopMonitorRules returns the trend rules of the stop monitor.
func (c Config) StopMonitorRules() stopmon.Rules {
	return stopmon.Rules{K: c.StopMonitorTrendK, M: c.StopMonitorTrendM, N: c.StopMonitorTrendN,
		P: c.StopMonitorTrendP, Conf: c.StopMonitorTrendConf}
}

// stopMonitorCheck is Validate's part for the stop monitor's keys.
func (c Config) stopMonitorCheck() []keyErr {
	var out []keyErr
	add := func(key, format string, a ...any) { out = append(out, keyErr{key, fmt.Sprintf(format, a...)}) }
	if _, err := stopmon.ParseMode(c.StopMonitorMode); err != nil || c.StopMonitorMode == "" {
		add("stop_monitor.mode", "%q; want off, warn or hold (default hold: docs/safety-case.md, \"The stop-performance monitor\")", c.StopMonitorMode)
	}
	if l, err := c.StopMonitorConfigLimits(); err != nil {
		add("stop_monitor.limits", "%s", err)
	} else if l != nil {
		if _, err := l.Limits(); err != nil {
			add("stop_monitor.limits", "%s", err)
		}
	}
	r := c.StopMonitorRules()
	if r.K < 0 || r.K > 100 {
		add("stop_monitor.trend_k", "%d; want 0 (rule off) .. 100 (default %d)", r.K, stopmon.DefaultRules.K)
	}
	if r.M < 0 || r.M > 100 || (r.K > 0 && r.M < r.K) {
		add("stop_monitor.trend_m", "%d; want trend_k (%d) .. 100 (default %d)", r.M, r.K, stopmon.DefaultRules.M)
	}
	if r.N < 0 || r.N > 1000 || (r.N > 0 && r.N < 3) {
		add("stop_monitor.trend_n", "%d; want 0 (rule off) or 3 .. 1000 (default %d)", r.N, stopmon.DefaultRules.N)
	}
	if !(r.P > 0 && r.P < 1) {
		add("stop_monitor.trend_p", "%v; want a proportion strictly between 0 and 1 (default %v)", r.P, stopmon.DefaultRules.P)
	}
	if !(r.Conf > 0 && r.Conf < 1) {
		add("stop_monitor.trend_conf", "%v; want a confidence strictly between 0 and 1 (default %v)", r.Conf, stopmon.DefaultRules.Conf)
	}
	return out
}
