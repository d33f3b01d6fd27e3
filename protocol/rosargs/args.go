package rosargs

import (
	"fmt"
	"strings"
)

// Markers of a ROS argument section (rcl: RCL_ROS_ARGS_FLAG, RCL_ROS_ARGS_EXPLICIT_END_TOKEN).
const (
	Begin = "--ros-args"
	End   = "--"
)

// Args are a node's parsed ROS arguments, in command-line order within each kind.
type Args struct {
	// Remaps are the -r rules (topic, service, node name and namespace rules) in order: the first match wins.
	Remaps []Remap
	// Params are the -p assignments in order (a later one of the same name wins).
	Params []Param
	// ParamsFiles are the --params-file paths in order (a later file wins key by key).
	ParamsFiles []string
	// LogLevel is the default level of --log-level LEVEL ("" if none; the last one wins), in upper case.
	LogLevel string
	// LoggerLevels are the --log-level name:=LEVEL rules in order.
	LoggerLevels []LoggerLevel
	// Enclave is -e/--enclave's value ("" if none; the last one wins): the node's SROS2 enclave when
	// ROS_SECURITY_ENABLE=true, unless ROS_SECURITY_ENCLAVE_OVERRIDE names one (as in rcl).
	Enclave string
	// Notes are the arguments accepted but not acted on, each with why (for the log at start).
	Notes []string
}

// LoggerLevel is `--log-level name:=LEVEL`.
type LoggerLevel struct{ Logger, Level string }

// Error is a malformed ROS argument: Arg is the flag (and its value, if any) as given.
type Error struct {
	Arg string
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("--ros-args: %s: %s", e.Arg, e.Msg) }

// Split takes the ROS argument sections out of a command line: every `--ros-args` up to the next `--` or
// the end. It returns the other arguments in order, the ROS arguments (without the markers) in order, and
// whether any section was found. A `--` outside a section is an ordinary argument.
func Split(argv []string) (rest, ros []string, found bool) {
	in := false
	for _, a := range argv {
		switch {
		case a == Begin:
			in, found = true, true
		case in && a == End:
			in = false
		case in:
			ros = append(ros, a)
		default:
			rest = append(rest, a)
		}
	}
	return rest, ros, found
}

// ignoredFlags are flags that ros2 launch or users add, accepted without a value and not acted on, with why.
var ignoredFlags = map[string]string{
	"--enable-rosout-logs":        "the node's /rosout publishing is not switched by this flag",
	"--disable-rosout-logs":       "the node's /rosout publishing is not switched by this flag",
	"--enable-stdout-logs":        "the log always goes to stderr (the journal under systemd)",
	"--disable-stdout-logs":       "the log always goes to stderr (the journal under systemd)",
	"--enable-external-lib-logs":  "there is no external logging library",
	"--disable-external-lib-logs": "there is no external logging library",
}

// Parse parses the ROS arguments (Split's second result; `--ros-args` markers are skipped). An argument it
// does not know, a flag without its value, or a malformed rule is an *Error naming the argument.
func Parse(ros []string) (*Args, error) {
	a := &Args{}
	for i := 0; i < len(ros); i++ {
		flag := ros[i]
		if flag == Begin {
			continue
		}
		if why, ok := ignoredFlags[flag]; ok {
			a.Notes = append(a.Notes, flag+" ignored: "+why)
			continue
		}
		var val string
		switch flag {
		case "-r", "--remap", "-p", "--param", "--params-file", "--log-level", "--log-config-file", "-e", "--enclave":
			if i+1 >= len(ros) || ros[i+1] == End || ros[i+1] == Begin {
				return nil, &Error{flag, "missing its value (" + usage[flag] + ")"}
			}
			i++
			val = ros[i]
		default:
			msg := "unknown ROS argument; supported: -r/--remap, -p/--param, --params-file, --log-level, -e/--enclave, --log-config-file and the --enable-/--disable- logging flags"
			if strings.Contains(flag, ":=") {
				msg = "a rule without its flag; write -r " + flag + " or -p " + flag
			}
			return nil, &Error{flag, msg}
		}
		arg := flag + " " + val
		switch flag {
		case "-r", "--remap":
			r, err := ParseRemap(val)
			if err != nil {
				return nil, &Error{arg, err.Error()}
			}
			a.Remaps = append(a.Remaps, r)
		case "-p", "--param":
			p, err := ParseParam(val)
			if err != nil {
				return nil, &Error{arg, err.Error()}
			}
			a.Params = append(a.Params, p)
		case "--params-file":
			if strings.TrimSpace(val) == "" {
				return nil, &Error{arg, "empty file name"}
			}
			a.ParamsFiles = append(a.ParamsFiles, val)
		case "--log-level":
			name, level, rule := strings.Cut(val, ":=")
			if !rule {
				name, level = "", val
			}
			lv, err := parseLevel(level)
			if err != nil {
				return nil, &Error{arg, err.Error()}
			}
			if !rule {
				a.LogLevel = lv
			} else if name == "" {
				return nil, &Error{arg, "empty logger name; write --log-level LEVEL or --log-level name:=LEVEL"}
			} else {
				a.LoggerLevels = append(a.LoggerLevels, LoggerLevel{name, lv})
			}
		case "--log-config-file":
			a.Notes = append(a.Notes, arg+" ignored: the log is Go's log/slog, not rcutils' external logger")
		case "-e", "--enclave":
			if !strings.HasPrefix(val, "/") {
				return nil, &Error{arg, "an enclave is an absolute name such as /robot"}
			}
			a.Enclave = val // the node's SROS2 enclave; ROS_SECURITY_ENCLAVE_OVERRIDE wins (ros2/sros2.FromEnv)
		}
	}
	return a, nil
}

var usage = map[string]string{
	"-r": "-r from:=to", "--remap": "--remap from:=to", "-p": "-p name:=value", "--param": "--param name:=value",
	"--params-file": "--params-file FILE", "--log-level": "--log-level LEVEL or --log-level name:=LEVEL",
	"--log-config-file": "--log-config-file FILE", "-e": "-e /enclave", "--enclave": "--enclave /enclave",
}

// Levels are rcutils' severities, as --log-level takes them (any case).
var Levels = []string{"DEBUG", "INFO", "WARN", "ERROR", "FATAL", "UNSET"}

func parseLevel(s string) (string, error) {
	u := strings.ToUpper(s)
	for _, l := range Levels {
		if u == l {
			return l, nil
		}
	}
	return "", fmt.Errorf("log level %q is not one of %s (any case)", s, strings.Join(Levels, ", "))
}

// Level returns the log level for the logger named logger (the node's logger: its name, or "ns.name" for a
// node in a namespace, as rcl names it): the last name:=LEVEL rule for it, else the default level, else "".
func (a *Args) Level(logger string) string {
	for i := len(a.LoggerLevels) - 1; i >= 0; i-- {
		if a.LoggerLevels[i].Logger == logger {
			return a.LoggerLevels[i].Level
		}
	}
	return a.LogLevel
}

// ParamValue returns the last -p value of name.
func (a *Args) ParamValue(name string) (Value, bool) {
	for i := len(a.Params) - 1; i >= 0; i-- {
		if a.Params[i].Name == name {
			return a.Params[i].Value, true
		}
	}
	return Value{}, false
}
