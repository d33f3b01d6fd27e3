//go:build !(ros2 && linux && cgo)

package dds

// NewSecureParticipant returns ErrNotBuilt in this build.
func NewSecureParticipant(domain int, userData string, props []Property) (*Participant, error) {
	return nil, ErrNotBuilt
}
