package sros2

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Governance is a DDS Security governance document (omg_shared_ca_governance.xsd), the fields SROS2 writes.
type Governance struct {
	XMLName     xml.Name     `xml:"dds"`
	DomainRules []DomainRule `xml:"domain_access_rules>domain_rule"`
}

// DomainRule is one domain_rule of a governance document.
type DomainRule struct {
	Domains                          Domains     `xml:"domains"`
	AllowUnauthenticatedParticipants string      `xml:"allow_unauthenticated_participants"`
	EnableJoinAccessControl          string      `xml:"enable_join_access_control"`
	DiscoveryProtectionKind          string      `xml:"discovery_protection_kind"`
	LivelinessProtectionKind         string      `xml:"liveliness_protection_kind"`
	RTPSProtectionKind               string      `xml:"rtps_protection_kind"`
	TopicRules                       []TopicRule `xml:"topic_access_rules>topic_rule"`
}

// TopicRule is one topic_rule of a domain rule.
type TopicRule struct {
	TopicExpression            string `xml:"topic_expression"`
	EnableDiscoveryProtection  string `xml:"enable_discovery_protection"`
	EnableLivelinessProtection string `xml:"enable_liveliness_protection"`
	EnableReadAccessControl    string `xml:"enable_read_access_control"`
	EnableWriteAccessControl   string `xml:"enable_write_access_control"`
	MetadataProtectionKind     string `xml:"metadata_protection_kind"`
	DataProtectionKind         string `xml:"data_protection_kind"`
}

// Domains is a set of domain ids: single ids and ranges.
type Domains struct {
	IDs    []string  `xml:"id"`
	Ranges []IDRange `xml:"id_range"`
}

// IDRange is an id_range (min or max may be missing: open).
type IDRange struct {
	Min string `xml:"min"`
	Max string `xml:"max"`
}

// Contains reports whether domain id is in the set.
func (d Domains) Contains(id int) bool {
	for _, s := range d.IDs {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n == id {
			return true
		}
	}
	for _, r := range d.Ranges {
		lo, hi := 0, 1<<31-1
		if s := strings.TrimSpace(r.Min); s != "" {
			lo, _ = strconv.Atoi(s)
		}
		if s := strings.TrimSpace(r.Max); s != "" {
			hi, _ = strconv.Atoi(s)
		}
		if id >= lo && id <= hi {
			return true
		}
	}
	return false
}

func (d Domains) check() error {
	if len(d.IDs) == 0 && len(d.Ranges) == 0 {
		return errors.New("no domains")
	}
	for _, s := range d.IDs {
		if _, err := strconv.Atoi(strings.TrimSpace(s)); err != nil {
			return fmt.Errorf("domain id %q is no number", s)
		}
	}
	for _, r := range d.Ranges {
		for _, s := range []string{r.Min, r.Max} {
			if s = strings.TrimSpace(s); s != "" {
				if _, err := strconv.Atoi(s); err != nil {
					return fmt.Errorf("id_range bound %q is no number", s)
				}
			}
		}
	}
	return nil
}

var (
	protectionKinds = map[string]bool{"NONE": true, "SIGN": true, "ENCRYPT": true,
		"SIGN_WITH_ORIGIN_AUTHENTICATION": true, "ENCRYPT_WITH_ORIGIN_AUTHENTICATION": true}
	dataProtectionKinds = map[string]bool{"NONE": true, "SIGN": true, "ENCRYPT": true}
)

func checkBool(field, v string) error {
	switch strings.TrimSpace(v) {
	case "true", "false", "1", "0", "TRUE", "FALSE":
		return nil
	}
	return fmt.Errorf("%s %q is not true or false", field, v)
}

func checkKind(field, v string, kinds map[string]bool) error {
	if !kinds[strings.TrimSpace(v)] {
		return fmt.Errorf("%s %q is not a protection kind (NONE, SIGN, ENCRYPT...)", field, v)
	}
	return nil
}

// ParseGovernance parses and checks a governance document (the content signed in governance.p7s).
func ParseGovernance(b []byte) (*Governance, error) {
	var g Governance
	if err := xml.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("governance does not parse: %v", err)
	}
	if len(g.DomainRules) == 0 {
		return nil, errors.New("governance has no domain_access_rules/domain_rule")
	}
	for i, r := range g.DomainRules {
		errs := []error{r.Domains.check(),
			checkBool("allow_unauthenticated_participants", r.AllowUnauthenticatedParticipants),
			checkBool("enable_join_access_control", r.EnableJoinAccessControl),
			checkKind("discovery_protection_kind", r.DiscoveryProtectionKind, protectionKinds),
			checkKind("liveliness_protection_kind", r.LivelinessProtectionKind, protectionKinds),
			checkKind("rtps_protection_kind", r.RTPSProtectionKind, protectionKinds)}
		for j, t := range r.TopicRules {
			if strings.TrimSpace(t.TopicExpression) == "" {
				errs = append(errs, fmt.Errorf("topic_rule %d: no topic_expression", j+1))
			}
			for _, e := range []error{checkBool("enable_discovery_protection", t.EnableDiscoveryProtection),
				checkBool("enable_liveliness_protection", t.EnableLivelinessProtection),
				checkBool("enable_read_access_control", t.EnableReadAccessControl),
				checkBool("enable_write_access_control", t.EnableWriteAccessControl),
				checkKind("metadata_protection_kind", t.MetadataProtectionKind, protectionKinds),
				checkKind("data_protection_kind", t.DataProtectionKind, dataProtectionKinds)} {
				if e != nil {
					errs = append(errs, fmt.Errorf("topic_rule %d: %w", j+1, e))
				}
			}
		}
		if err := errors.Join(errs...); err != nil {
			return nil, fmt.Errorf("governance domain_rule %d: %w", i+1, err)
		}
	}
	return &g, nil
}

// Permissions is a DDS Security permissions document (omg_shared_ca_permissions.xsd).
type Permissions struct {
	XMLName xml.Name `xml:"dds"`
	Grants  []Grant  `xml:"permissions>grant"`
}

// Grant is one grant: a subject's rules.
type Grant struct {
	Name        string   `xml:"name,attr"`
	SubjectName string   `xml:"subject_name"`
	Validity    Validity `xml:"validity"`
	Allow       []Rule   `xml:"allow_rule"`
	Deny        []Rule   `xml:"deny_rule"`
	Default     string   `xml:"default"`
}

// Validity is a grant's period, xs:dateTime (UTC when no zone is given).
type Validity struct {
	NotBefore string `xml:"not_before"`
	NotAfter  string `xml:"not_after"`
}

// Rule is an allow_rule or deny_rule.
type Rule struct {
	Domains   Domains    `xml:"domains"`
	Publish   []Criteria `xml:"publish"`
	Subscribe []Criteria `xml:"subscribe"`
	Relay     []Criteria `xml:"relay"`
}

// Criteria is a publish, subscribe or relay element: topics (fnmatch expressions) and partitions.
type Criteria struct {
	Topics     []string `xml:"topics>topic"`
	Partitions []string `xml:"partitions>partition"`
}

// Period parses the validity.
func (v Validity) Period() (notBefore, notAfter time.Time, err error) {
	if notBefore, err = parseXMLTime(v.NotBefore); err != nil {
		return
	}
	notAfter, err = parseXMLTime(v.NotAfter)
	return
}

func parseXMLTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("validity date %q is not an xs:dateTime such as 2026-01-31T12:00:00", s)
}

// ParsePermissions parses and checks a permissions document (the content signed in permissions.p7s).
func ParsePermissions(b []byte) (*Permissions, error) {
	var p Permissions
	if err := xml.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("permissions do not parse: %v", err)
	}
	if len(p.Grants) == 0 {
		return nil, errors.New("permissions have no permissions/grant")
	}
	for _, g := range p.Grants {
		if strings.TrimSpace(g.SubjectName) == "" {
			return nil, fmt.Errorf("grant %q has no subject_name", g.Name)
		}
		if _, err := parseDN(g.SubjectName); err != nil {
			return nil, fmt.Errorf("grant %q: %v", g.Name, err)
		}
		if _, _, err := g.Validity.Period(); err != nil {
			return nil, fmt.Errorf("grant %q: %v", g.Name, err)
		}
		if d := strings.TrimSpace(g.Default); d != "ALLOW" && d != "DENY" {
			return nil, fmt.Errorf("grant %q: default %q is not ALLOW or DENY", g.Name, g.Default)
		}
		for _, r := range append(append([]Rule{}, g.Allow...), g.Deny...) {
			if err := r.Domains.check(); err != nil {
				return nil, fmt.Errorf("grant %q: %v", g.Name, err)
			}
		}
	}
	return &p, nil
}

// GrantFor is the grant whose subject_name is subject (attribute by attribute, in any order, as Cyclone's
// access-control plugin compares them), or nil.
func (p *Permissions) GrantFor(subject pkix.Name) *Grant {
	want := map[string]int{}
	for _, rdn := range subject.ToRDNSequence() {
		for _, atv := range rdn {
			want[attrName(atv.Type)+"="+fmt.Sprint(atv.Value)]++
		}
	}
	for i := range p.Grants {
		got, err := parseDN(p.Grants[i].SubjectName)
		if err != nil || len(got) != len(want) {
			continue
		}
		same := true
		for k, n := range want {
			if got[k] != n {
				same = false
			}
		}
		if same {
			return &p.Grants[i]
		}
	}
	return nil
}

var attrNames = map[string]string{"2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O",
	"2.5.4.11": "OU", "1.2.840.113549.1.9.1": "EMAILADDRESS", "2.5.4.5": "SERIALNUMBER", "2.5.4.9": "STREET",
	"2.5.4.17": "POSTALCODE", "0.9.2342.19200300.100.1.25": "DC", "0.9.2342.19200300.100.1.1": "UID"}

func attrName(oid asn1.ObjectIdentifier) string {
	if n, ok := attrNames[oid.String()]; ok {
		return n
	}
	return oid.String()
}

// parseDN reads "CN=/robot, O=lab" (either "," or "/" separated, as OpenSSL's one-line form writes) into
// "KEY=value" counts. Escaped separators are honoured.
func parseDN(s string) (map[string]int, error) {
	s = strings.TrimSpace(s)
	sep := byte(',')
	if strings.HasPrefix(s, "/") {
		sep, s = '/', s[1:]
	}
	out := map[string]int{}
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
		case c == sep || (sep == ',' && c == ';'):
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	parts = append(parts, cur.String())
	for _, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		k = strings.ToUpper(strings.TrimSpace(k))
		if !ok || k == "" {
			return nil, fmt.Errorf("subject_name %q is not a distinguished name such as CN=/robot", s)
		}
		if k == "E" || k == "EMAIL" {
			k = "EMAILADDRESS"
		}
		out[k+"="+strings.TrimSpace(v)]++
	}
	return out, nil
}

// CheckDomain reports, naming the file, why a participant of e could not join domain id: no governance
// domain_rule covers it, or the grant (default DENY) has no allow_rule for it. SROS2 writes ROS_DOMAIN_ID as it
// was when the permissions were made, so a robot moved to another domain meets this.
func (e *Enclave) CheckDomain(id int) error {
	covered := false
	for _, r := range e.Governance.DomainRules {
		covered = covered || r.Domains.Contains(id)
	}
	if !covered {
		return &Error{e.GovernanceFile, fmt.Errorf("no domain_rule for domain %d (ROS_DOMAIN_ID)", id)}
	}
	if strings.TrimSpace(e.Grant.Default) == "ALLOW" {
		return nil
	}
	for _, r := range e.Grant.Allow {
		if r.Domains.Contains(id) {
			return nil
		}
	}
	return &Error{e.PermissionsFile, fmt.Errorf("grant %q allows nothing in domain %d (ROS_DOMAIN_ID): make the permissions again with that ROS_DOMAIN_ID (`ros2 security create_permission`)", e.Grant.Name, id)}
}
