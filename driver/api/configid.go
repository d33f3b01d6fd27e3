package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// MonitorKeyPrefix marks the stop monitor's own parameters (stop_monitor.mode, .limits_file, ...).
const MonitorKeyPrefix = "stop_monitor."

// ConfigIdentity is the hash that says "the same robot configuration" between a campaign's runs and the
// driver that holds stops against the campaign's bounds: the sha256 (hex) of the configuration the driver
// reports (GET /v1/config, a flat JSON object) with the stop monitor's own parameters left out, re-encoded
// with sorted keys. The monitor's settings (its mode, the limits file it was given) do not change how the
// robot stops; without leaving them out, giving a driver a campaign's limits would change the hash and the
// limits would be refused as another robot's.
func ConfigIdentity(reported []byte) (string, error) {
	var m map[string]any
	if err := json.Unmarshal(reported, &m); err != nil {
		return "", fmt.Errorf("config identity: not a JSON object: %w", err)
	}
	for k := range m {
		if strings.HasPrefix(k, MonitorKeyPrefix) {
			delete(m, k)
		}
	}
	b, err := json.Marshal(m) // map keys sorted
	if err != nil {
		return "", fmt.Errorf("config identity: %w", err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}
