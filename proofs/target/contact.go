package target

import (
	"context"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

// ContactModer is an optional ability of a Target (found by type assertion): the driver's contact reflex
// switched to log mode for a while, or back to its configured mode (POST /v1/contact). The stand proof
// uses it where the seed stopped the rosorin-contact service: with the wheels in the air every spin looks
// like a contact.
type ContactModer interface {
	// ContactMode sets mode "log" for d (at most api.MaxContactOverride), or "" for the configured mode.
	ContactMode(ctx context.Context, mode string, d time.Duration) error
}

var _ ContactModer = (*LiveTarget)(nil)

// ContactMode implements ContactModer.
func (l *LiveTarget) ContactMode(ctx context.Context, mode string, d time.Duration) error {
	r, err := l.c.ContactMode(ctx, api.ContactRequest{Mode: mode, ForS: d.Seconds()})
	return replyErr("contact mode", r, err)
}
