//go:build !(ros2 && linux && cgo)

package dds

import "time"

// Available reports whether this binary has the Cyclone DDS layer: not this one (built without the ros2
// tag, or not for Linux with cgo).
func Available() bool { return false }

// Participant is a DDS domain participant (not in this build: NewParticipant returns ErrNotBuilt).
type Participant struct{}

// NewParticipant returns ErrNotBuilt in this build.
func NewParticipant(domain int, userData string) (*Participant, error) { return nil, ErrNotBuilt }

func (*Participant) GUID() GUID   { return GUID{} }
func (*Participant) Close() error { return nil }
func (*Participant) NewWriter(topicName, typeName string, q QoS, userData string) (*Writer, error) {
	return nil, ErrNotBuilt
}
func (*Participant) NewReader(topicName, typeName string, q QoS, userData string) (*Reader, error) {
	return nil, ErrNotBuilt
}

// Writer is a DDS writer (not in this build).
type Writer struct{}

func (*Writer) Write([]byte) error    { return ErrNotBuilt }
func (*Writer) GUID() GUID            { return GUID{} }
func (*Writer) Handle() uint64        { return 0 }
func (*Writer) Matched() (int, error) { return 0, ErrNotBuilt }
func (*Writer) Close() error          { return nil }

// Reader is a DDS reader (not in this build).
type Reader struct{}

func (*Reader) GUID() GUID                          { return GUID{} }
func (*Reader) Matched() (int, error)               { return 0, ErrNotBuilt }
func (*Reader) Wait(time.Duration) (bool, error)    { return false, ErrNotBuilt }
func (*Reader) Wake()                               {}
func (*Reader) Take(dst []Sample) ([]Sample, error) { return dst, ErrNotBuilt }
func (*Reader) Close() error                        { return nil }
func (*Reader) Progress(dst []WriterProgress) ([]WriterProgress, error) {
	return dst, ErrNotBuilt
}
func (*Reader) MatchedWriters(dst []uint64) ([]uint64, error) { return dst, ErrNotBuilt }

func (*Reader) CatchingUp() (bool, error) { return false, ErrNotBuilt }

// Internals returns ErrNotBuilt in this build.
func Internals() error { return ErrNotBuilt }

// FillAllocations does nothing in this build.
func FillAllocations(int) {}
