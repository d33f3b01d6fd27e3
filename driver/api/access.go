package api

import (
	"errors"
	"fmt"
	"os/user"
	"slices"
	"strconv"
	"strings"
)

// Who may do what on the control socket (docs/driver.md, "Roles").
//
// The socket's mode (0660, group rosorin) decides who may connect at all. What a connection may do is decided
// per operation from the kernel's credentials of the connecting process (SO_PEERCRED: uid; SO_PEERGROUPS:
// its groups at connect time, which a client cannot forge):
//
//   - observe: read the state and the output streams;
//   - drive: the velocity inputs, enable and disable, tightening a runtime limit;
//   - safety: reset a latched e-stop, change the contact reflex's mode, loosen a runtime limit, anything
//     that weakens a stop.
//
// Anyone who can connect may e-stop. The service's own user (the driver runs as it; so do the supervisor,
// the LiDAR reader and, unless the deployment gives it its own user, the ROS 2 bridge) and root hold every
// role: such a process can signal or trace the driver anyway, so withholding a role from it would protect
// nothing. Everyone else holds a role through a group of the role's list.

// Role is one kind of permission on the control socket.
type Role uint8

// The roles, from the weakest.
const (
	RoleObserve Role = 1 << iota
	RoleDrive
	RoleSafety
)

// AllRoles is every role.
const AllRoles = RoleObserve | RoleDrive | RoleSafety

func (r Role) String() string {
	var s []string
	for _, x := range []struct {
		r    Role
		name string
	}{{RoleObserve, "observe"}, {RoleDrive, "drive"}, {RoleSafety, "safety"}} {
		if r&x.r != 0 {
			s = append(s, x.name)
		}
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ",")
}

// Has reports whether r includes every role of want.
func (r Role) Has(want Role) bool { return r&want == want }

// The default groups of the roles (deploy/README.md creates them).
const (
	DefaultDriveGroup  = "rosorin-drive"
	DefaultSafetyGroup = "rosorin-safety"
)

// Access is the control socket's policy: the groups of each role. An empty Observe list means anyone who can
// connect observes; empty Drive and Safety lists mean only the owner and root hold those roles.
type Access struct {
	// OwnerUID is the service's user (the driver's own uid): every role. -1: none (tests).
	OwnerUID int
	// The groups (names or numeric ids) whose members hold each role. A member of a Safety group also drives
	// and observes; a member of a Drive group also observes.
	Observe, Drive, Safety []string
	// Open gives every connection every role: the driver without a policy (tests, a driver embedded in a
	// program). The service never runs open.
	Open bool

	gids [3][]int // resolved Observe, Drive, Safety
	// unknown are the group names that did not resolve (nobody holds a role through them).
	unknown []string
}

// OpenAccess is the policy of a Server without one: every connection holds every role.
func OpenAccess() *Access { return &Access{Open: true, OwnerUID: -1} }

// DefaultAccess is the service's policy: ownerUID holds every role, rosorin-drive drives, rosorin-safety
// resets, anyone who can connect observes.
func DefaultAccess(ownerUID int) *Access {
	return &Access{OwnerUID: ownerUID, Drive: []string{DefaultDriveGroup}, Safety: []string{DefaultSafetyGroup}}
}

// Resolve looks up the groups' ids. A group that does not exist is no error (a robot without a safety group
// simply has nobody but the owner and root who may reset): it is kept in Unknown for the start-up log. A
// malformed entry is an error.
func (a *Access) Resolve() error {
	for i, names := range [][]string{a.Observe, a.Drive, a.Safety} {
		a.gids[i] = nil
		for _, n := range names {
			n = strings.TrimSpace(n)
			if n == "" {
				continue
			}
			if id, err := strconv.Atoi(n); err == nil {
				if id < 0 {
					return fmt.Errorf("access: group id %d: must be >= 0", id)
				}
				a.gids[i] = append(a.gids[i], id)
				continue
			}
			if strings.ContainsAny(n, " \t:/") {
				return fmt.Errorf("access: group %q: not a group name or id", n)
			}
			g, err := user.LookupGroup(n)
			if err != nil {
				var unk user.UnknownGroupError
				if errors.As(err, &unk) {
					if !slices.Contains(a.unknown, n) {
						a.unknown = append(a.unknown, n)
					}
					continue
				}
				return fmt.Errorf("access: group %q: %w", n, err)
			}
			id, err := strconv.Atoi(g.Gid)
			if err != nil {
				return fmt.Errorf("access: group %q has gid %q", n, g.Gid)
			}
			a.gids[i] = append(a.gids[i], id)
		}
	}
	return nil
}

// Unknown returns the configured group names that do not exist on this machine.
func (a *Access) Unknown() []string { return a.unknown }

// RolesOf returns the roles of a process with uid and groups (its primary and supplementary gids). known is
// false when the kernel gave no credentials: such a peer may only e-stop.
func (a *Access) RolesOf(uid int, groups []int, known bool) Role {
	if a == nil || a.Open {
		return AllRoles
	}
	if !known {
		return 0
	}
	if uid == 0 || (a.OwnerUID >= 0 && uid == a.OwnerUID) {
		return AllRoles
	}
	in := func(gids []int) bool {
		for _, g := range groups {
			if slices.Contains(gids, g) {
				return true
			}
		}
		return false
	}
	var r Role
	if len(a.Observe) == 0 || in(a.gids[0]) {
		r |= RoleObserve
	}
	if in(a.gids[1]) {
		r |= RoleDrive | RoleObserve
	}
	if in(a.gids[2]) {
		r |= AllRoles
	}
	return r
}

// groupsOf names the groups of role for a refusal ("group rosorin-drive").
func (a *Access) groupsOf(role Role) string {
	var names []string
	switch role {
	case RoleObserve:
		names = append(append(append(names, a.Observe...), a.Drive...), a.Safety...)
	case RoleDrive:
		names = append(append(names, a.Drive...), a.Safety...)
	default:
		names = append(names, a.Safety...)
	}
	if len(names) == 0 {
		return "no group grants it (only the service's user and root hold it)"
	}
	return "it is held by members of " + strings.Join(names, ", ")
}

// Summary is the start-up log's line: who holds which role.
func (a *Access) Summary() string {
	if a == nil || a.Open {
		return "open: every connection holds every role"
	}
	list := func(g []string, none string) string {
		if len(g) == 0 {
			return none
		}
		return strings.Join(g, ",")
	}
	s := fmt.Sprintf("observe: %s; drive: %s; safety: %s; e-stop: anyone who can connect; uid %d and root: every role",
		list(a.Observe, "anyone who can connect"), list(a.Drive, "nobody else"), list(a.Safety, "nobody else"), a.OwnerUID)
	if len(a.unknown) > 0 {
		s += "; groups not on this machine (nobody holds a role through them): " + strings.Join(a.unknown, ",")
	}
	return s
}

// RoleError is a refusal for want of a role: HTTP 403 with its text.
type RoleError struct {
	Op   string // what was asked ("enable", "reset the e-stop")
	Need Role
	Peer Peer
	Has  Role
	how  string
}

func (e *RoleError) Error() string {
	return fmt.Sprintf("refused: %s needs the %s role; uid %d (%s) holds %s; %s; nothing was changed",
		e.Op, e.Need, e.Peer.UID, e.Peer, e.Has, e.how)
}

// check returns a *RoleError when p lacks need.
func (a *Access) check(p Peer, need Role, op string) error {
	if p.Roles.Has(need) {
		return nil
	}
	how := "the kernel gave no credentials for this connection"
	if p.credKnown {
		how = a.groupsOf(need) + " (deploy/README.md: usermod -aG GROUP USER, then log in again)"
	}
	return &RoleError{Op: op, Need: need, Peer: p, Has: p.Roles, how: how}
}
