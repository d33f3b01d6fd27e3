package harness

import "encoding/json"

// ConfigNumber looks for key anywhere in a JSON document (the driver's configuration) and returns its
// number.
func ConfigNumber(doc json.RawMessage, key string) (float64, bool) {
	var v any
	if json.Unmarshal(doc, &v) != nil {
		return 0, false
	}
	var walk func(any) (float64, bool)
	walk = func(v any) (float64, bool) {
		switch x := v.(type) {
		case map[string]any:
			if n, ok := x[key].(float64); ok {
				return n, true
			}
			for _, c := range x {
				if n, ok := walk(c); ok {
					return n, true
				}
			}
		case []any:
			for _, c := range x {
				if n, ok := walk(c); ok {
					return n, true
				}
			}
		}
		return 0, false
	}
	return walk(v)
}
