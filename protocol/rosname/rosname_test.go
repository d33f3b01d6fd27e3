package rosname

import "testing"

func TestLoggerName(t *testing.T) {
	if LoggerName("n", "/a/b") != "a.b.n" || LoggerName("n", "") != "n" {
		t.Error("LoggerName")
	}
}
