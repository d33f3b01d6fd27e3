/* Prints, one line per case, the plain-CDR serialization (header included) that Cyclone DDS's own serializer
 * (dds_stream_writeLE with the idlc-generated ops of params.idl) produces for the cases of protocol/rosmsg's
 * parameter table (params_test.go): "name<TAB>hex". TestParamsMatchCyclone builds and runs it and compares. */
#include <stdio.h>
#include <string.h>
#include "dds/dds.h"
#include "dds/ddsi/ddsi_cdrstream.h"
#include "params.h"

#define CDR_XCDR1 1
#define SEQ(buf, n) {._length = (n), ._maximum = (n), ._buffer = (buf)}

static void emit(const char *name, const void *sample, const dds_topic_descriptor_t *desc) {
  dds_ostreamLE_t os;
  dds_ostreamLE_init(&os, 0, CDR_XCDR1);
  dds_stream_writeLE(&os, sample, desc->m_ops);
  printf("%s\t00010000", name);
  for (uint32_t i = 0; i < os.x.m_index; i++) printf("%02x", os.x.m_buffer[i]);
  printf("\n");
  dds_ostreamLE_fini(&os);
}

typedef rcl_interfaces_msg_ParameterValue PV;
typedef rcl_interfaces_msg_Parameter P;
typedef rcl_interfaces_msg_ParameterDescriptor PD;

int main(void) {
  PV dbl = {.type = 3, .double_value = 0.3, .string_value = ""};
  PV str = {.type = 4, .string_value = "imu_link"};
  PV dev = {.type = 4, .string_value = "/dev/ttyACM0"};
  PV in = {.type = 2, .integer_value = -5, .string_value = ""};
  double da[] = {1, 0.765, 0};
  PV darr = {.type = 8, .string_value = "", .double_array_value = SEQ(da, 3)};
  uint8_t oc[] = {1, 2}; bool bo[] = {true, false}; int64_t i64[] = {7}; char *ss[] = {"a", "bc"};
  PV all = {.type = 9, .bool_value = true, .string_value = "", .byte_array_value = SEQ(oc, 2),
    .bool_array_value = SEQ(bo, 2), .integer_array_value = SEQ(i64, 1), .string_array_value = SEQ(ss, 2)};
  emit("ParameterValue double", &dbl, &rcl_interfaces_msg_ParameterValue_desc);
  emit("ParameterValue string", &str, &rcl_interfaces_msg_ParameterValue_desc);
  emit("ParameterValue integer", &in, &rcl_interfaces_msg_ParameterValue_desc);
  emit("ParameterValue double_array", &darr, &rcl_interfaces_msg_ParameterValue_desc);
  emit("ParameterValue every array", &all, &rcl_interfaces_msg_ParameterValue_desc);
  P par = {.name = "cmd_timeout", .value = dbl};
  emit("Parameter", &par, &rcl_interfaces_msg_Parameter_desc);
  rcl_interfaces_msg_FloatingPointRange fr = {0, 0.35, 0};
  PD dmax = {.name = "max_linear", .type = 3, .description = "speed limit", .additional_constraints = "<= 0.35",
    .floating_point_range = SEQ(&fr, 1)};
  emit("ParameterDescriptor double", &dmax, &rcl_interfaces_msg_ParameterDescriptor_desc);
  rcl_interfaces_msg_IntegerRange ir = {0, 255, 1};
  PD dkey = {.name = "estop_key", .type = 2, .description = "", .additional_constraints = "", .read_only = true,
    .integer_range = SEQ(&ir, 1)};
  emit("ParameterDescriptor read-only integer", &dkey, &rcl_interfaces_msg_ParameterDescriptor_desc);
  rcl_interfaces_msg_SetParametersResult res = {false, "read-only"};
  emit("SetParametersResult", &res, &rcl_interfaces_msg_SetParametersResult_desc);
  char *names[] = {"a", "bb"};
  rcl_interfaces_msg_ListParametersResult lr = {.names = SEQ(names, 2)};
  emit("ListParametersResult", &lr, &rcl_interfaces_msg_ListParametersResult_desc);
  PV v01 = {.type = 3, .double_value = 0.1, .string_value = ""};
  P changed = {.name = "max_linear", .value = v01};
  rcl_interfaces_msg_ParameterEvent ev = {.stamp = {5, 6}, .node = "/rosorin_board_driver",
    .changed_parameters = SEQ(&changed, 1)};
  emit("ParameterEvent", &ev, &rcl_interfaces_msg_ParameterEvent_desc);
  char *pre[] = {"x"};
  rcl_interfaces_srv_ListParameters_Request lq = {.prefixes = SEQ(pre, 1), .depth = 1};
  emit("ListParameters request", &lq, &rcl_interfaces_srv_ListParameters_Request_desc);
  rcl_interfaces_srv_ListParameters_Response lp = {.result = lr};
  emit("ListParameters response", &lp, &rcl_interfaces_srv_ListParameters_Response_desc);
  char *gn[] = {"cmd_timeout", "device"};
  rcl_interfaces_srv_GetParameters_Request gq = {.names = SEQ(gn, 2)};
  emit("GetParameters request", &gq, &rcl_interfaces_srv_GetParameters_Request_desc);
  PV vals[] = {dbl, dev};
  rcl_interfaces_srv_GetParameters_Response gp = {.values = SEQ(vals, 2)};
  emit("GetParameters response", &gp, &rcl_interfaces_srv_GetParameters_Response_desc);
  uint8_t ty[] = {3, 4};
  rcl_interfaces_srv_GetParameterTypes_Response tp = {.types = SEQ(ty, 2)};
  emit("GetParameterTypes response", &tp, &rcl_interfaces_srv_GetParameterTypes_Response_desc);
  PD ds[] = {dmax, dkey};
  rcl_interfaces_srv_DescribeParameters_Response dp = {.descriptors = SEQ(ds, 2)};
  emit("DescribeParameters response", &dp, &rcl_interfaces_srv_DescribeParameters_Response_desc);
  rcl_interfaces_srv_SetParameters_Request sq = {.parameters = SEQ(&par, 1)};
  emit("SetParameters request", &sq, &rcl_interfaces_srv_SetParameters_Request_desc);
  rcl_interfaces_msg_SetParametersResult rs[] = {{true, ""}, {false, "no"}};
  rcl_interfaces_srv_SetParameters_Response sp = {.results = SEQ(rs, 2)};
  emit("SetParameters response", &sp, &rcl_interfaces_srv_SetParameters_Response_desc);
  rcl_interfaces_srv_SetParametersAtomically_Response ap = {.result = {false, "x"}};
  emit("SetParametersAtomically response", &ap, &rcl_interfaces_srv_SetParametersAtomically_Response_desc);
  return 0;
}
