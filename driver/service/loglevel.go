package service

import (
	"log/slog"
	"os"
	"strings"
)

// LogLevelEnv carries the log level (rcutils' names: DEBUG, INFO, WARN, ERROR, FATAL, UNSET) from
// `rosorin-base run --ros-args --log-level LEVEL` to the service's children, which inherit the environment.
const LogLevelEnv = "ROSORIN_LOG_LEVEL"

// logLevel is ProcLogger's level: the environment's at start (INFO when unset), SetLogLevel's after.
var logLevel = func() *slog.LevelVar {
	v := new(slog.LevelVar)
	v.Set(levelOf(os.Getenv(LogLevelEnv)))
	return v
}()

// SetLogLevel sets the level of every ProcLogger of this process.
func SetLogLevel(level string) { logLevel.Set(levelOf(level)) }

func levelOf(s string) slog.Level {
	switch strings.ToUpper(s) {
	case "DEBUG":
		return slog.LevelDebug
	case "WARN":
		return slog.LevelWarn
	case "ERROR":
		return slog.LevelError
	case "FATAL":
		return slog.LevelError + 4
	}
	return slog.LevelInfo
}
