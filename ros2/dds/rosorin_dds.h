//go:build ros2 && linux && cgo

// The C side of ros2/dds (dds_cgo.go): Cyclone DDS 0.10.2 through its public API and, for the e-stop watch
// and the catch-up (docs/ros2.md), some of its internal structs, pinned in rosorin_dds.c. These are the
// functions the Go side calls.
#ifndef ROSORIN_DDS_H
#define ROSORIN_DDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dds/dds.h"
#include "dds/ddsi/ddsi_sertype.h"
#include "dds/ddsi/ddsi_serdata.h"

typedef struct { int32_t valid; uint32_t size; int64_t source; uint64_t writer; const unsigned char *data; } rs_taken;

#define RS_MAX_TAKE 32

dds_entity_t rs_writer(dds_entity_t pp, dds_entity_t tp, int rel, int tl, int depth, const void *ud, size_t udlen, int64_t lifespan);
dds_return_t rs_write(dds_entity_t wr, const struct ddsi_sertype *t, const void *buf, size_t n);
dds_entity_t rs_waiter(dds_entity_t pp, dds_entity_t rd, dds_entity_t *guard);
dds_return_t rs_wait(dds_entity_t ws, dds_entity_t guard, int64_t timeout);
dds_entity_t rs_topic(dds_entity_t pp, const char *name, const char *type_name, struct ddsi_sertype **out);
int32_t rs_take(dds_entity_t rd, struct ddsi_serdata **bufs, rs_taken *out);
int32_t rs_sub_matched(dds_entity_t wr);
void rs_set_fill(int b);
void rs_release(struct ddsi_serdata **bufs, int32_t n);
dds_entity_t rs_reader(dds_entity_t pp, dds_entity_t tp, int rel, int tl, int depth, const void *ud, size_t udlen);
int32_t rs_pub_matched(dds_entity_t rd);
int rs_progress(dds_entity_t rd, const struct ddsi_sertype *st, dds_instance_handle_t ih, int64_t *announced, int64_t *next);
dds_entity_t rs_participant(dds_domainid_t domain, const void *ud, size_t udlen);
int32_t rs_matched(dds_entity_t rd, dds_instance_handle_t *out, size_t n);
int rs_layout_checked(void);
int rs_is_catch_up(dds_entity_t rd, const struct ddsi_sertype *st);
int64_t rs_handle(dds_entity_t e);
int32_t rs_guid(dds_entity_t e, unsigned char *out);
int rs_ddsc_path(char *buf, size_t n);
int rs_catch_up(dds_entity_t rd, const struct ddsi_sertype *st);
const char *rs_built_version(void);
int rs_bitfields(int *rd_byte, int *rd_mask, int *pwr_byte, int *pwr_mask);

#endif
