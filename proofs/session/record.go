package session

import (
	"fmt"
	"os"

	"github.com/rosorin/rosorin/proofs/proofrec"
)

// startRecording creates the run's MCAP recording beside the evidence log and copies every evidence line
// into it.
func (s *Session) startRecording(cfg Config) error {
	t0, _ := s.Evidence.Start()
	path := proofrec.PathBeside(s.Evidence.Path())
	rec, err := proofrec.Create(path, t0, map[string]string{"kind": cfg.Kind, "command_line": cfg.CommandLine})
	if err != nil {
		return fmt.Errorf("%w (pass --no-record to run without a recording)", err)
	}
	out := s.out
	// Called under the recording's lock: print only (an evidence line would come back to the recording).
	rec.OnError = func(err error) {
		fmt.Fprintf(out, "RECORDING STOPPED: %v (the proof goes on; the evidence log keeps everything)\n", err)
	}
	s.Evidence.SetTap(rec.Line)
	s.Recording = rec
	return nil
}

// closeRecording finishes the recording (after the target's teardown, so its lines are in it).
func (s *Session) closeRecording() {
	if s.Recording == nil {
		return
	}
	s.Evidence.SetTap(nil)
	if err := s.Recording.Close(); err != nil {
		fmt.Fprintf(s.out, "recording: %v\n", err)
		s.Evidence.Logf("recording: %v", err)
	} else if _, err := os.Stat(s.Recording.Path()); err == nil {
		fmt.Fprintf(s.out, "recording: %s\n", s.Recording.Path())
		s.Evidence.Logf("recording: %s", s.Recording.Path())
	}
	s.Recording = nil
}
