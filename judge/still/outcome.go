package still

import "fmt"

// Outcome is a verdict's result, shared with judge/ramp. The zero value is Fail, so a verdict nobody filled in
// never passes.
type Outcome uint8

const (
	Fail   Outcome = iota // motion was shown where none may be, or the judge could not run (bad parameters)
	Pass                  // the rule was shown to hold, by complete evidence
	NotRun                // the robot was already moving when the window began: the window proves nothing
	NoData                // the evidence has a hole (too few samples, a gap, non-finite numbers): never a pass
)

var outcomeWords = []string{"FAIL", "PASS", "NOT RUN", "NO DATA"}

// String returns "FAIL", "PASS", "NOT RUN" or "NO DATA", the words the result line ends with.
func (o Outcome) String() string {
	if int(o) < len(outcomeWords) {
		return outcomeWords[o]
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// MarshalText writes the outcome as its word.
func (o Outcome) MarshalText() ([]byte, error) {
	if int(o) >= len(outcomeWords) {
		return nil, fmt.Errorf("still: unknown outcome %d", uint8(o))
	}
	return []byte(outcomeWords[o]), nil
}

// UnmarshalText reads one of the outcome words.
func (o *Outcome) UnmarshalText(b []byte) error {
	for i, w := range outcomeWords {
		if string(b) == w {
			*o = Outcome(i)
			return nil
		}
	}
	return fmt.Errorf("still: unknown outcome %q", b)
}
