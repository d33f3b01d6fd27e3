//go:build ros2 && linux && cgo

package dds

/*
#cgo LDFLAGS: -lddsc
#include <stdlib.h>
#include "dds/dds.h"

static dds_qos_t *rs_sec_qos(void) { return dds_create_qos(); }
static void rs_sec_prop(dds_qos_t *q, const char *name, const char *value) { dds_qset_prop(q, name, value); }
static void rs_sec_free_qos(dds_qos_t *q) { dds_delete_qos(q); }
static dds_entity_t rs_sec_participant(dds_domainid_t domain, dds_qos_t *q, const void *ud, size_t udlen) {
  if (udlen > 0) dds_qset_userdata(q, ud, udlen);
  return dds_create_participant(domain, q, NULL);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"
)

// NewSecureParticipant joins domain as NewParticipant does, with props (the dds.sec.* properties of an
// enclave) in the participant's QoS: Cyclone 0.10 then loads its security plugins for the domain and
// authenticates, encrypts and checks permissions as the governance and permissions say. A participant whose
// certificate, key or signed documents Cyclone does not accept is not created (DDS_RETCODE_NOT_ALLOWED_BY_SECURITY
// or PRECONDITION_NOT_MET; Cyclone logs the reason on stderr). Writers and readers of topics the permissions do
// not grant fail at creation (NOT_ALLOWED_BY_SECURITY).
//
// The plugins are loaded once per domain and process, from the first secure participant's library paths.
func NewSecureParticipant(domain int, userData string, props []Property) (*Participant, error) {
	if domain < 0 || domain > 232 {
		return nil, fmt.Errorf("dds: domain id %d out of 0..232 (ROS_DOMAIN_ID)", domain)
	}
	secure := false
	for _, p := range props {
		secure = secure || strings.HasPrefix(p.Name, "dds.sec.")
	}
	if !secure {
		return nil, errors.New("dds: NewSecureParticipant without dds.sec.* properties would make an unsecured participant")
	}
	if os.Getenv("ROS_LOCALHOST_ONLY") == "1" {
		// As NewParticipant: the loopback interface first, as rmw_cyclonedds does.
		cfg := `<CycloneDDS><Domain><General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces></General></Domain></CycloneDDS>`
		if u := os.Getenv("CYCLONEDDS_URI"); u != "" {
			cfg += "," + u
		}
		cs := C.CString(cfg)
		d := C.dds_create_domain(C.dds_domainid_t(domain), cs)
		C.free(unsafe.Pointer(cs))
		if d < 0 && d != C.DDS_RETCODE_PRECONDITION_NOT_MET {
			return nil, check("create domain (ROS_LOCALHOST_ONLY=1)", C.dds_return_t(d))
		}
	}
	q := C.rs_sec_qos()
	defer C.rs_sec_free_qos(q)
	for _, p := range props {
		n, v := C.CString(p.Name), C.CString(p.Value)
		C.rs_sec_prop(q, n, v)
		C.free(unsafe.Pointer(n))
		C.free(unsafe.Pointer(v))
	}
	ud := []byte(userData)
	pp := C.rs_sec_participant(C.dds_domainid_t(domain), q, cbytes(ud), C.size_t(len(ud)))
	if err := check("create secure participant", C.dds_return_t(pp)); err != nil {
		return nil, fmt.Errorf("%w (Cyclone's log on stderr says why; CYCLONEDDS_URI=%q)", err, os.Getenv("CYCLONEDDS_URI"))
	}
	return &Participant{pp: pp, topics: map[string]topic{}}, nil
}
