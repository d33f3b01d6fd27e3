package rosmsg

import (
	"fmt"

	"github.com/rosorin/rosorin/protocol/cdr"
)

// rcl_interfaces (Humble): the messages and services of ROS 2 parameters, as an rclcpp node serves them.

// ParameterType constants (rcl_interfaces/msg/ParameterType).
const (
	ParameterNotSet       uint8 = 0
	ParameterBool         uint8 = 1
	ParameterInteger      uint8 = 2
	ParameterDouble       uint8 = 3
	ParameterString       uint8 = 4
	ParameterByteArray    uint8 = 5
	ParameterBoolArray    uint8 = 6
	ParameterIntegerArray uint8 = 7
	ParameterDoubleArray  uint8 = 8
	ParameterStringArray  uint8 = 9
)

// ParameterTypeName is the name rclcpp gives a ParameterType ("double", "integer", "not set").
func ParameterTypeName(t uint8) string {
	switch t {
	case ParameterNotSet:
		return "not set"
	case ParameterBool:
		return "bool"
	case ParameterInteger:
		return "integer"
	case ParameterDouble:
		return "double"
	case ParameterString:
		return "string"
	case ParameterByteArray:
		return "byte_array"
	case ParameterBoolArray:
		return "bool_array"
	case ParameterIntegerArray:
		return "integer_array"
	case ParameterDoubleArray:
		return "double_array"
	case ParameterStringArray:
		return "string_array"
	}
	return fmt.Sprintf("unknown type %d", t)
}

// Minimum encoded sizes (without alignment) for SeqLen: a hostile count never makes a decoder allocate.
const (
	minString         = 4  // a length (0 is taken as "")
	minParameterValue = 43 // type, bool, int64, double, string, five sequence lengths
	minParameter      = minString + minParameterValue
	minDescriptor     = 3*minString + 1 + 2 + 2*4
	minSetResult      = 1 + minString
)

// ParameterValue is rcl_interfaces/msg/ParameterValue: Type says which field holds the value.
type ParameterValue struct {
	Type         uint8
	Bool         bool
	Integer      int64
	Double       float64
	String       string
	ByteArray    []byte
	BoolArray    []bool
	IntegerArray []int64
	DoubleArray  []float64
	StringArray  []string
}

func putStrings(w *cdr.Writer, s []string) {
	w.Len(len(s))
	for _, x := range s {
		w.String(x)
	}
}

func getStrings(r *cdr.Reader) []string {
	n := r.SeqLen(minString)
	if n == 0 {
		return nil
	}
	s := make([]string, n)
	for i := range s {
		s[i] = r.String()
	}
	return s
}

func (m *ParameterValue) MarshalCDR(w *cdr.Writer) {
	w.Uint8(m.Type)
	w.Bool(m.Bool)
	w.Int64(m.Integer)
	w.Float64(m.Double)
	w.String(m.String)
	w.Len(len(m.ByteArray))
	w.Octets(m.ByteArray)
	w.Len(len(m.BoolArray))
	for _, b := range m.BoolArray {
		w.Bool(b)
	}
	w.Len(len(m.IntegerArray))
	for _, i := range m.IntegerArray {
		w.Int64(i)
	}
	w.Len(len(m.DoubleArray))
	putFloats(w, m.DoubleArray)
	putStrings(w, m.StringArray)
}

func (m *ParameterValue) UnmarshalCDR(r *cdr.Reader) error {
	*m = ParameterValue{}
	m.Type = r.Uint8()
	m.Bool = r.Bool()
	m.Integer = r.Int64()
	m.Double = r.Float64()
	m.String = r.String()
	if n := r.SeqLen(1); n > 0 {
		m.ByteArray = r.Octets(n)
	}
	if n := r.SeqLen(1); n > 0 {
		m.BoolArray = make([]bool, n)
		for i := range m.BoolArray {
			m.BoolArray[i] = r.Bool()
		}
	}
	if n := r.SeqLen(8); n > 0 {
		m.IntegerArray = make([]int64, n)
		for i := range m.IntegerArray {
			m.IntegerArray[i] = r.Int64()
		}
	}
	if n := r.SeqLen(8); n > 0 {
		m.DoubleArray = make([]float64, n)
		getFloats(r, m.DoubleArray)
	}
	m.StringArray = getStrings(r)
	return r.Err()
}
func (*ParameterValue) ROSType() string { return "rcl_interfaces/msg/ParameterValue" }

func putValues(w *cdr.Writer, v []ParameterValue) {
	w.Len(len(v))
	for i := range v {
		v[i].MarshalCDR(w)
	}
}

func getValues(r *cdr.Reader) []ParameterValue {
	n := r.SeqLen(minParameterValue)
	if n == 0 {
		return nil
	}
	v := make([]ParameterValue, n)
	for i := range v {
		if v[i].UnmarshalCDR(r) != nil {
			return v[:i]
		}
	}
	return v
}

// Parameter is rcl_interfaces/msg/Parameter.
type Parameter struct {
	Name  string
	Value ParameterValue
}

func (m *Parameter) MarshalCDR(w *cdr.Writer) { w.String(m.Name); m.Value.MarshalCDR(w) }
func (m *Parameter) UnmarshalCDR(r *cdr.Reader) error {
	m.Name = r.String()
	return m.Value.UnmarshalCDR(r)
}
func (*Parameter) ROSType() string { return "rcl_interfaces/msg/Parameter" }

func putParameters(w *cdr.Writer, p []Parameter) {
	w.Len(len(p))
	for i := range p {
		p[i].MarshalCDR(w)
	}
}

func getParameters(r *cdr.Reader) []Parameter {
	n := r.SeqLen(minParameter)
	if n == 0 {
		return nil
	}
	p := make([]Parameter, n)
	for i := range p {
		if p[i].UnmarshalCDR(r) != nil {
			return p[:i]
		}
	}
	return p
}

// FloatingPointRange is rcl_interfaces/msg/FloatingPointRange (inclusive; step 0: any value).
type FloatingPointRange struct{ FromValue, ToValue, Step float64 }

// IntegerRange is rcl_interfaces/msg/IntegerRange (inclusive; step 0: any value).
type IntegerRange struct {
	FromValue, ToValue int64
	Step               uint64
}

// ParameterDescriptor is rcl_interfaces/msg/ParameterDescriptor. The ranges are sequences of at most one.
type ParameterDescriptor struct {
	Name                  string
	Type                  uint8
	Description           string
	AdditionalConstraints string
	ReadOnly              bool
	DynamicTyping         bool
	FloatingPointRange    []FloatingPointRange
	IntegerRange          []IntegerRange
}

func (m *ParameterDescriptor) MarshalCDR(w *cdr.Writer) {
	w.String(m.Name)
	w.Uint8(m.Type)
	w.String(m.Description)
	w.String(m.AdditionalConstraints)
	w.Bool(m.ReadOnly)
	w.Bool(m.DynamicTyping)
	w.Len(len(m.FloatingPointRange))
	for _, f := range m.FloatingPointRange {
		w.Float64(f.FromValue)
		w.Float64(f.ToValue)
		w.Float64(f.Step)
	}
	w.Len(len(m.IntegerRange))
	for _, i := range m.IntegerRange {
		w.Int64(i.FromValue)
		w.Int64(i.ToValue)
		w.Uint64(i.Step)
	}
}

func (m *ParameterDescriptor) UnmarshalCDR(r *cdr.Reader) error {
	*m = ParameterDescriptor{}
	m.Name = r.String()
	m.Type = r.Uint8()
	m.Description = r.String()
	m.AdditionalConstraints = r.String()
	m.ReadOnly = r.Bool()
	m.DynamicTyping = r.Bool()
	if n := r.SeqLen(24); n > 1 {
		r.Fail(fmt.Errorf("rosmsg: ParameterDescriptor with %d floating point ranges (at most 1)", n))
	} else if n == 1 {
		m.FloatingPointRange = []FloatingPointRange{{r.Float64(), r.Float64(), r.Float64()}}
	}
	if n := r.SeqLen(24); n > 1 {
		r.Fail(fmt.Errorf("rosmsg: ParameterDescriptor with %d integer ranges (at most 1)", n))
	} else if n == 1 {
		m.IntegerRange = []IntegerRange{{r.Int64(), r.Int64(), r.Uint64()}}
	}
	return r.Err()
}
func (*ParameterDescriptor) ROSType() string { return "rcl_interfaces/msg/ParameterDescriptor" }

// SetParametersResult is rcl_interfaces/msg/SetParametersResult.
type SetParametersResult struct {
	Successful bool
	Reason     string
}

func (m *SetParametersResult) MarshalCDR(w *cdr.Writer) { w.Bool(m.Successful); w.String(m.Reason) }
func (m *SetParametersResult) UnmarshalCDR(r *cdr.Reader) error {
	m.Successful = r.Bool()
	m.Reason = r.String()
	return r.Err()
}
func (*SetParametersResult) ROSType() string { return "rcl_interfaces/msg/SetParametersResult" }

// ListParametersResult is rcl_interfaces/msg/ListParametersResult.
type ListParametersResult struct{ Names, Prefixes []string }

func (m *ListParametersResult) MarshalCDR(w *cdr.Writer) {
	putStrings(w, m.Names)
	putStrings(w, m.Prefixes)
}
func (m *ListParametersResult) UnmarshalCDR(r *cdr.Reader) error {
	m.Names = getStrings(r)
	m.Prefixes = getStrings(r)
	return r.Err()
}
func (*ListParametersResult) ROSType() string { return "rcl_interfaces/msg/ListParametersResult" }

// ParameterEvent is rcl_interfaces/msg/ParameterEvent, the message of /parameter_events. Node is the
// node's fully qualified name.
type ParameterEvent struct {
	Stamp                                               Time
	Node                                                string
	NewParameters, ChangedParameters, DeletedParameters []Parameter
}

func (m *ParameterEvent) MarshalCDR(w *cdr.Writer) {
	m.Stamp.MarshalCDR(w)
	w.String(m.Node)
	putParameters(w, m.NewParameters)
	putParameters(w, m.ChangedParameters)
	putParameters(w, m.DeletedParameters)
}
func (m *ParameterEvent) UnmarshalCDR(r *cdr.Reader) error {
	m.Stamp.UnmarshalCDR(r)
	m.Node = r.String()
	m.NewParameters = getParameters(r)
	m.ChangedParameters = getParameters(r)
	m.DeletedParameters = getParameters(r)
	return r.Err()
}
func (*ParameterEvent) ROSType() string { return "rcl_interfaces/msg/ParameterEvent" }

// ListParameters.srv: DEPTH_RECURSIVE is 0.
const ListParametersDepthRecursive uint64 = 0

// ListParametersRequest is rcl_interfaces/srv/ListParameters_Request.
type ListParametersRequest struct {
	Prefixes []string
	Depth    uint64
}

func (m *ListParametersRequest) MarshalCDR(w *cdr.Writer) {
	putStrings(w, m.Prefixes)
	w.Uint64(m.Depth)
}
func (m *ListParametersRequest) UnmarshalCDR(r *cdr.Reader) error {
	m.Prefixes = getStrings(r)
	m.Depth = r.Uint64()
	return r.Err()
}
func (*ListParametersRequest) ROSType() string { return "rcl_interfaces/srv/ListParameters_Request" }

// ListParametersResponse is rcl_interfaces/srv/ListParameters_Response.
type ListParametersResponse struct{ Result ListParametersResult }

func (m *ListParametersResponse) MarshalCDR(w *cdr.Writer)         { m.Result.MarshalCDR(w) }
func (m *ListParametersResponse) UnmarshalCDR(r *cdr.Reader) error { return m.Result.UnmarshalCDR(r) }
func (*ListParametersResponse) ROSType() string                    { return "rcl_interfaces/srv/ListParameters_Response" }

// NamesRequest is the request of GetParameters, GetParameterTypes and DescribeParameters (string[] names);
// Srv is the service's ROS name ("rcl_interfaces/srv/GetParameters").
type NamesRequest struct {
	Srv   string
	Names []string
}

func (m *NamesRequest) MarshalCDR(w *cdr.Writer)         { putStrings(w, m.Names) }
func (m *NamesRequest) UnmarshalCDR(r *cdr.Reader) error { m.Names = getStrings(r); return r.Err() }
func (m *NamesRequest) ROSType() string                  { return m.Srv + "_Request" }

// Service types of the parameter services.
const (
	SrvListParameters          = "rcl_interfaces/srv/ListParameters"
	SrvGetParameters           = "rcl_interfaces/srv/GetParameters"
	SrvGetParameterTypes       = "rcl_interfaces/srv/GetParameterTypes"
	SrvDescribeParameters      = "rcl_interfaces/srv/DescribeParameters"
	SrvSetParameters           = "rcl_interfaces/srv/SetParameters"
	SrvSetParametersAtomically = "rcl_interfaces/srv/SetParametersAtomically"
)

// GetParametersResponse is rcl_interfaces/srv/GetParameters_Response.
type GetParametersResponse struct{ Values []ParameterValue }

func (m *GetParametersResponse) MarshalCDR(w *cdr.Writer) { putValues(w, m.Values) }
func (m *GetParametersResponse) UnmarshalCDR(r *cdr.Reader) error {
	m.Values = getValues(r)
	return r.Err()
}
func (*GetParametersResponse) ROSType() string { return SrvGetParameters + "_Response" }

// GetParameterTypesResponse is rcl_interfaces/srv/GetParameterTypes_Response.
type GetParameterTypesResponse struct{ Types []uint8 }

func (m *GetParameterTypesResponse) MarshalCDR(w *cdr.Writer) { w.Len(len(m.Types)); w.Octets(m.Types) }
func (m *GetParameterTypesResponse) UnmarshalCDR(r *cdr.Reader) error {
	m.Types = nil
	if n := r.SeqLen(1); n > 0 {
		m.Types = r.Octets(n)
	}
	return r.Err()
}
func (*GetParameterTypesResponse) ROSType() string { return SrvGetParameterTypes + "_Response" }

// DescribeParametersResponse is rcl_interfaces/srv/DescribeParameters_Response.
type DescribeParametersResponse struct{ Descriptors []ParameterDescriptor }

func (m *DescribeParametersResponse) MarshalCDR(w *cdr.Writer) {
	w.Len(len(m.Descriptors))
	for i := range m.Descriptors {
		m.Descriptors[i].MarshalCDR(w)
	}
}
func (m *DescribeParametersResponse) UnmarshalCDR(r *cdr.Reader) error {
	m.Descriptors = nil
	if n := r.SeqLen(minDescriptor); n > 0 {
		m.Descriptors = make([]ParameterDescriptor, n)
		for i := range m.Descriptors {
			if m.Descriptors[i].UnmarshalCDR(r) != nil {
				m.Descriptors = m.Descriptors[:i]
				break
			}
		}
	}
	return r.Err()
}
func (*DescribeParametersResponse) ROSType() string { return SrvDescribeParameters + "_Response" }

// SetParametersRequest is the request of SetParameters and SetParametersAtomically (Parameter[]
// parameters); Srv is the service's ROS name.
type SetParametersRequest struct {
	Srv        string
	Parameters []Parameter
}

func (m *SetParametersRequest) MarshalCDR(w *cdr.Writer) { putParameters(w, m.Parameters) }
func (m *SetParametersRequest) UnmarshalCDR(r *cdr.Reader) error {
	m.Parameters = getParameters(r)
	return r.Err()
}
func (m *SetParametersRequest) ROSType() string { return m.Srv + "_Request" }

// SetParametersResponse is rcl_interfaces/srv/SetParameters_Response: one result per parameter.
type SetParametersResponse struct{ Results []SetParametersResult }

func (m *SetParametersResponse) MarshalCDR(w *cdr.Writer) {
	w.Len(len(m.Results))
	for i := range m.Results {
		m.Results[i].MarshalCDR(w)
	}
}
func (m *SetParametersResponse) UnmarshalCDR(r *cdr.Reader) error {
	m.Results = nil
	if n := r.SeqLen(minSetResult); n > 0 {
		m.Results = make([]SetParametersResult, n)
		for i := range m.Results {
			if m.Results[i].UnmarshalCDR(r) != nil {
				m.Results = m.Results[:i]
				break
			}
		}
	}
	return r.Err()
}
func (*SetParametersResponse) ROSType() string { return SrvSetParameters + "_Response" }

// SetParametersAtomicallyResponse is rcl_interfaces/srv/SetParametersAtomically_Response.
type SetParametersAtomicallyResponse struct{ Result SetParametersResult }

func (m *SetParametersAtomicallyResponse) MarshalCDR(w *cdr.Writer) { m.Result.MarshalCDR(w) }
func (m *SetParametersAtomicallyResponse) UnmarshalCDR(r *cdr.Reader) error {
	return m.Result.UnmarshalCDR(r)
}
func (*SetParametersAtomicallyResponse) ROSType() string {
	return SrvSetParametersAtomically + "_Response"
}

var (
	_ Message = (*ParameterValue)(nil)
	_ Message = (*Parameter)(nil)
	_ Message = (*ParameterDescriptor)(nil)
	_ Message = (*SetParametersResult)(nil)
	_ Message = (*ListParametersResult)(nil)
	_ Message = (*ParameterEvent)(nil)
	_ Message = (*ListParametersRequest)(nil)
	_ Message = (*ListParametersResponse)(nil)
	_ Message = (*NamesRequest)(nil)
	_ Message = (*GetParametersResponse)(nil)
	_ Message = (*GetParameterTypesResponse)(nil)
	_ Message = (*DescribeParametersResponse)(nil)
	_ Message = (*SetParametersRequest)(nil)
	_ Message = (*SetParametersResponse)(nil)
	_ Message = (*SetParametersAtomicallyResponse)(nil)
)
