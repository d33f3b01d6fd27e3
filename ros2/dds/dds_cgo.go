//go:build ros2 && linux && cgo

package dds

/*
#cgo LDFLAGS: -lddsc
#define _GNU_SOURCE // dl_iterate_phdr
#include <link.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "dds/version.h"
#include "dds/dds.h"
#include "dds/ddsi/ddsi_sertype.h"
#include "dds/ddsi/ddsi_serdata.h"
#include "dds/ddsi/q_radmin.h"
// Cyclone's internals, for two things its public API cannot do (see CatchUp and Progress): the headers and
// the library come from the same cyclonedds-dev 0.10.2 package.
#include "dds/ddsi/ddsi_domaingv.h"
#include "dds/ddsi/ddsi_entity_index.h"
#include "dds/ddsi/ddsi_endpoint.h"
#include "dds/ddsi/ddsi_proxy_endpoint.h"
#include "dds/ddsi/ddsi_entity_match.h"
#include "dds/ddsi/q_bswap.h"
#include "dds/ddsi/q_thread.h"

// The layout of Cyclone 0.10.2's internal structs that this file relies on, as built from Debian's
// cyclonedds-dev 0.10.2-2 on x86_64: the embedded sertype and serdata (allocated here, filled by the
// library), the received data fragments (rs_from_ser), the domain's entity index, the reader's entity lock
// (rs_catch_up), the proxy writer and its reader match (rs_progress), and the thread state that the inline
// thread_state_awake/asleep write. The headers are only the library's description of itself: a Cyclone whose
// structs moved fails to compile here instead of reading and writing the wrong bytes at run time. The two
// bitfields (handle_as_transient_local, have_seen_heartbeat) have no offsetof: their neighbours are pinned
// here and the bits themselves by rs_bitfields (checked when the package loads, and by TestInternalsLayout).
#if defined(__x86_64__)
#define RS_LAYOUT_CHECKED 1
_Static_assert(DDS_VERSION_MAJOR == 0 && DDS_VERSION_MINOR == 10 && DDS_VERSION_PATCH == 2, "ros2/dds reads Cyclone 0.10.2's internals: re-check dds_cgo.go for this version");
_Static_assert(sizeof(struct ddsi_sertype) == 80, "ddsi_sertype size");
_Static_assert(offsetof(struct ddsi_sertype, ops) == 0, "ddsi_sertype.ops");
_Static_assert(offsetof(struct ddsi_sertype, serdata_ops) == 8, "ddsi_sertype.serdata_ops");
_Static_assert(offsetof(struct ddsi_sertype, serdata_basehash) == 16, "ddsi_sertype.serdata_basehash");
_Static_assert(offsetof(struct ddsi_sertype, type_name) == 32, "ddsi_sertype.type_name");
_Static_assert(offsetof(struct ddsi_sertype, gv) == 40, "ddsi_sertype.gv");
_Static_assert(sizeof(struct ddsi_serdata) == 72, "ddsi_serdata size");
_Static_assert(offsetof(struct ddsi_serdata, ops) == 0, "ddsi_serdata.ops");
_Static_assert(offsetof(struct ddsi_serdata, hash) == 8, "ddsi_serdata.hash");
_Static_assert(offsetof(struct ddsi_serdata, refc) == 12, "ddsi_serdata.refc");
_Static_assert(offsetof(struct ddsi_serdata, type) == 24, "ddsi_serdata.type");
_Static_assert(sizeof(struct nn_rdata) == 40, "nn_rdata size");
_Static_assert(offsetof(struct nn_rdata, rmsg) == 0, "nn_rdata.rmsg");
_Static_assert(offsetof(struct nn_rdata, nextfrag) == 8, "nn_rdata.nextfrag");
_Static_assert(offsetof(struct nn_rdata, min) == 16, "nn_rdata.min");
_Static_assert(offsetof(struct nn_rdata, maxp1) == 20, "nn_rdata.maxp1");
_Static_assert(offsetof(struct nn_rdata, payload_zoff) == 26, "nn_rdata.payload_zoff");
_Static_assert(sizeof(struct nn_rmsg) == 48, "nn_rmsg size (the payload follows it: NN_RMSG_PAYLOAD)");
_Static_assert(sizeof(ddsi_guid_t) == 16, "ddsi_guid_t size");
_Static_assert(sizeof(seqno_t) == 8, "seqno_t size");
_Static_assert(sizeof(ddsrt_mutex_t) == 40, "ddsrt_mutex_t size");
_Static_assert(offsetof(struct ddsi_domaingv, entity_index) == 968, "ddsi_domaingv.entity_index");
_Static_assert(offsetof(struct ddsi_entity_common, lock) == 48, "ddsi_entity_common.lock");
_Static_assert(sizeof(struct ddsi_reader) == 320, "ddsi_reader size");
_Static_assert(offsetof(struct ddsi_reader, e) == 0, "ddsi_reader.e");
_Static_assert(offsetof(struct ddsi_reader, xqos) == 232, "ddsi_reader.xqos (before the bitfields)");
_Static_assert(sizeof(struct ddsi_proxy_writer) == 424, "ddsi_proxy_writer size");
_Static_assert(offsetof(struct ddsi_proxy_writer, e) == 0, "ddsi_proxy_writer.e");
_Static_assert(offsetof(struct ddsi_proxy_writer, readers) == 264, "ddsi_proxy_writer.readers");
_Static_assert(offsetof(struct ddsi_proxy_writer, last_seq) == 280, "ddsi_proxy_writer.last_seq");
_Static_assert(offsetof(struct ddsi_proxy_writer, next_deliv_seq_lowword) == 296, "ddsi_proxy_writer.next_deliv_seq_lowword (before the bitfields)");
_Static_assert(offsetof(struct ddsi_proxy_writer, alive_vclock) == 304, "ddsi_proxy_writer.alive_vclock (after the bitfields)");
_Static_assert(offsetof(struct ddsi_proxy_writer, reorder) == 320, "ddsi_proxy_writer.reorder");
_Static_assert(sizeof(struct ddsi_pwr_rd_match) == 168, "ddsi_pwr_rd_match size");
_Static_assert(offsetof(struct ddsi_pwr_rd_match, rd_guid) == 32, "ddsi_pwr_rd_match.rd_guid (the AVL key)");
_Static_assert(offsetof(struct ddsi_pwr_rd_match, in_sync) == 136, "ddsi_pwr_rd_match.in_sync");
_Static_assert(offsetof(struct ddsi_pwr_rd_match, u.not_in_sync.reorder) == 152, "ddsi_pwr_rd_match.u.not_in_sync.reorder");
_Static_assert(PRMSS_OUT_OF_SYNC == 2, "pwr_rd_match_syncstate");
_Static_assert(sizeof(struct thread_state) == 64, "thread_state size");
_Static_assert(offsetof(struct thread_state, vtime) == 0, "thread_state.vtime");
_Static_assert(offsetof(struct thread_state, gv) == 8, "thread_state.gv");
#else
// Not measured on this architecture (aarch64's pthread mutex alone is 48 bytes, not 40): checkInternals
// turns the internals off here, at ERROR, instead of reading with unchecked offsets.
#define RS_LAYOUT_CHECKED 0
#endif
static int rs_layout_checked(void) { return RS_LAYOUT_CHECKED; }

// rs_bitfields finds the byte and bit of the two internal bitfields this file uses, in a zeroed struct:
// handle_as_transient_local of ddsi_reader (0.10.2: byte 240, 0x02) and have_seen_heartbeat of
// ddsi_proxy_writer (0.10.2: byte 300, 0x02). -1 when a bitfield spans more than one byte or none.
static int rs_bit_of(const unsigned char *p, size_t n, int *byte, int *mask) {
  *byte = -1; *mask = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] == 0) continue;
    if (*byte >= 0) return -1;
    *byte = (int) i; *mask = p[i];
  }
  return *byte >= 0 ? 0 : -1;
}
static int rs_bitfields(int *rd_byte, int *rd_mask, int *pwr_byte, int *pwr_mask) {
  struct ddsi_reader *r = calloc(1, sizeof *r);
  struct ddsi_proxy_writer *w = calloc(1, sizeof *w);
  int rc = -1;
  if (r != NULL && w != NULL) {
    r->handle_as_transient_local = 1;
    w->have_seen_heartbeat = 1;
    rc = rs_bit_of((const unsigned char *) r, sizeof *r, rd_byte, rd_mask) | rs_bit_of((const unsigned char *) w, sizeof *w, pwr_byte, pwr_mask);
  }
  free(r); free(w);
  return rc;
}

static const char *rs_built_version(void) { return DDS_VERSION; }

// rs_ddsc_path copies the path of the libddsc this process has loaded (the object that holds
// dds_create_participant) into buf: its file name carries the release (libddsc.so.0.10.2), its SONAME does
// not (Debian's libddsc.so.0debian).
struct rs_find { char *buf; size_t n; int found; };
static int rs_phdr_cb(struct dl_phdr_info *info, size_t size, void *arg) {
  (void) size;
  struct rs_find *f = arg;
  const char *name = info->dlpi_name;
  if (name == NULL || strstr(name, "/libddsc.so") == NULL) return 0;
  char *rp = realpath(name, NULL);
  snprintf(f->buf, f->n, "%s", rp ? rp : name);
  free(rp);
  f->found = 1;
  return 1;
}
static int rs_ddsc_path(char *buf, size_t n) {
  struct rs_find f = { buf, n, 0 };
  dl_iterate_phdr(rs_phdr_cb, &f);
  return f.found ? 0 : -1;
}

// An opaque sertype: its serdata is the serialized message (encapsulation header included), never
// interpreted. After rmw_cyclonedds' serdata.cpp.
struct rs_sertype { struct ddsi_sertype c; };
struct rs_serdata { struct ddsi_serdata c; uint32_t size; unsigned char *data; };

// rs_fill >= 0 (tests only, FillAllocations): every buffer is allocated 16 bytes larger than asked and
// filled with this byte first, as stale heap data would be; what is not written on purpose shows.
static int rs_fill = -1;
static unsigned char *rs_alloc(size_t n) {
  if (rs_fill < 0) return malloc(n);
  unsigned char *p = malloc(n + 16);
  if (p != NULL) memset(p, rs_fill, n + 16);
  return p;
}
static void rs_set_fill(int b) { rs_fill = b; }

// rs_new allocates a serdata of size bytes. The buffer is rounded up to a multiple of 4 and the padding is
// zero: Cyclone sends a sample's serialized size rounded up to 4 (to_ser_ref with align4u(len) in q_xmsg.c),
// so without it up to three bytes past the allocation would go onto the network. rmw_cyclonedds pads the
// same way. get_size stays the unpadded size.
static struct rs_serdata *rs_new(const struct ddsi_sertype *t, enum ddsi_serdata_kind kind, size_t size) {
  struct rs_serdata *d = calloc(1, sizeof *d);
  if (d == NULL) return NULL;
  ddsi_serdata_init(&d->c, t, kind);
  d->c.hash = t->serdata_basehash;
  d->size = (uint32_t) size;
  size_t padded = (size + 3) & ~(size_t) 3;
  if (padded > 0) {
    if ((d->data = rs_alloc(padded)) == NULL) { free(d); return NULL; }
    memset(d->data + size, 0, padded - size);
  }
  return d;
}

static uint32_t rs_get_size(const struct ddsi_serdata *d) { return ((const struct rs_serdata *) d)->size; }
static void rs_free(struct ddsi_serdata *dc) { struct rs_serdata *d = (struct rs_serdata *) dc; free(d->data); free(d); }
static bool rs_eqkey(const struct ddsi_serdata *a, const struct ddsi_serdata *b) { (void) a; (void) b; return true; }

static struct ddsi_serdata *rs_from_ser(const struct ddsi_sertype *t, enum ddsi_serdata_kind kind, const struct nn_rdata *frag, size_t size) {
  struct rs_serdata *d = rs_new(t, kind, size);
  if (d == NULL) return NULL;
  uint32_t off = 0;
  while (frag) {
    if (frag->maxp1 > off) {
      const unsigned char *payload = NN_RMSG_PAYLOADOFF(frag->rmsg, NN_RDATA_PAYLOAD_OFF(frag));
      uint32_t n = frag->maxp1 - off;
      if ((size_t) off + n > size) { rs_free(&d->c); return NULL; }
      memcpy(d->data + off, payload + off - frag->min, n);
      off = frag->maxp1;
    }
    frag = frag->nextfrag;
  }
  return &d->c;
}

static struct ddsi_serdata *rs_from_ser_iov(const struct ddsi_sertype *t, enum ddsi_serdata_kind kind, ddsrt_msg_iovlen_t niov, const ddsrt_iovec_t *iov, size_t size) {
  struct rs_serdata *d = rs_new(t, kind, size);
  if (d == NULL) return NULL;
  size_t off = 0;
  for (ddsrt_msg_iovlen_t i = 0; i < niov && off < size; i++) {
    size_t n = iov[i].iov_len;
    if (off + n > size) n = size - off;
    memcpy(d->data + off, iov[i].iov_base, n);
    off += n;
  }
  return &d->c;
}

static struct ddsi_serdata *rs_from_keyhash(const struct ddsi_sertype *t, const struct ddsi_keyhash *kh) {
  (void) kh;
  struct rs_serdata *d = rs_new(t, SDK_KEY, 0);
  return d ? &d->c : NULL;
}

// Samples are never used: this sertype only carries serialized bytes.
static struct ddsi_serdata *rs_from_sample(const struct ddsi_sertype *t, enum ddsi_serdata_kind kind, const void *s) {
  (void) t; (void) kind; (void) s; return NULL;
}
static bool rs_to_sample(const struct ddsi_serdata *d, void *s, void **b, void *l) { (void) d; (void) s; (void) b; (void) l; return false; }
static bool rs_untyped_to_sample(const struct ddsi_sertype *t, const struct ddsi_serdata *d, void *s, void **b, void *l) {
  (void) t; (void) d; (void) s; (void) b; (void) l; return true;
}
static struct ddsi_serdata *rs_to_untyped(const struct ddsi_serdata *dc) {
  struct rs_serdata *d = rs_new(dc->type, SDK_KEY, 0);
  if (d == NULL) return NULL;
  d->c.type = NULL;
  return &d->c;
}
static void rs_to_ser(const struct ddsi_serdata *dc, size_t off, size_t sz, void *buf) {
  const struct rs_serdata *d = (const struct rs_serdata *) dc;
  memcpy(buf, d->data + off, sz);
}
static struct ddsi_serdata *rs_to_ser_ref(const struct ddsi_serdata *dc, size_t off, size_t sz, ddsrt_iovec_t *ref) {
  const struct rs_serdata *d = (const struct rs_serdata *) dc;
  ref->iov_base = d->data + off;
  ref->iov_len = (ddsrt_iov_len_t) sz;
  return ddsi_serdata_ref(dc);
}
static void rs_to_ser_unref(struct ddsi_serdata *d, const ddsrt_iovec_t *ref) { (void) ref; ddsi_serdata_unref(d); }
static size_t rs_print(const struct ddsi_sertype *t, const struct ddsi_serdata *dc, char *buf, size_t size) {
  (void) t;
  return (size_t) snprintf(buf, size, "(%u serialized bytes)", (unsigned) ((const struct rs_serdata *) dc)->size);
}
static void rs_get_keyhash(const struct ddsi_serdata *d, struct ddsi_keyhash *buf, bool force_md5) {
  (void) d; (void) force_md5; memset(buf, 0, sizeof *buf);
}

static const struct ddsi_serdata_ops rs_serdata_ops = {
  .eqkey = rs_eqkey, .get_size = rs_get_size, .from_ser = rs_from_ser, .from_ser_iov = rs_from_ser_iov,
  .from_keyhash = rs_from_keyhash, .from_sample = rs_from_sample, .to_ser = rs_to_ser, .to_ser_ref = rs_to_ser_ref,
  .to_ser_unref = rs_to_ser_unref, .to_sample = rs_to_sample, .to_untyped = rs_to_untyped,
  .untyped_to_sample = rs_untyped_to_sample, .free = rs_free, .print = rs_print, .get_keyhash = rs_get_keyhash,
};

static void rs_sertype_free(struct ddsi_sertype *t) { ddsi_sertype_fini(t); free(t); }
static void rs_zero_samples(const struct ddsi_sertype *t, void *s, size_t n) { (void) t; (void) s; (void) n; }
static void rs_realloc_samples(void **ptrs, const struct ddsi_sertype *t, void *old, size_t oldn, size_t n) {
  (void) t; (void) oldn; (void) n; if (ptrs) ptrs[0] = old;
}
static void rs_free_samples(const struct ddsi_sertype *t, void **ptrs, size_t n, dds_free_op_t op) {
  (void) t; (void) ptrs; (void) n; (void) op;
}
static bool rs_equal(const struct ddsi_sertype *a, const struct ddsi_sertype *b) { return strcmp(a->type_name, b->type_name) == 0; }
static uint32_t rs_hash(const struct ddsi_sertype *t) {
  uint32_t h = 2166136261u;
  for (const char *p = t->type_name; *p; p++) h = (h ^ (unsigned char) *p) * 16777619u;
  return h;
}

static const struct ddsi_sertype_ops rs_sertype_ops = {
  .version = ddsi_sertype_v0, .arg = NULL, .free = rs_sertype_free, .zero_samples = rs_zero_samples,
  .realloc_samples = rs_realloc_samples, .free_samples = rs_free_samples, .equal = rs_equal, .hash = rs_hash,
};

static dds_entity_t rs_topic(dds_entity_t pp, const char *name, const char *type_name, struct ddsi_sertype **out) {
  struct rs_sertype *t = calloc(1, sizeof *t);
  if (t == NULL) return DDS_RETCODE_OUT_OF_RESOURCES;
  ddsi_sertype_init(&t->c, type_name, &rs_sertype_ops, &rs_serdata_ops, true);
  struct ddsi_sertype *st = &t->c;
  dds_entity_t tp = dds_create_topic_sertype(pp, name, &st, NULL, NULL, NULL);
  if (tp < 0) { rs_sertype_free(&t->c); return tp; }
  *out = st;
  return tp;
}

static dds_qos_t *rs_qos(int reliable, int transient_local, int depth, const void *ud, size_t udlen) {
  dds_qos_t *q = dds_create_qos();
  dds_qset_reliability(q, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT, DDS_MSECS(100));
  dds_qset_durability(q, transient_local ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
  dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth < 1 ? 1 : depth);
  if (udlen > 0) dds_qset_userdata(q, ud, udlen);
  return q;
}

static dds_entity_t rs_participant(dds_domainid_t domain, const void *ud, size_t udlen) {
  dds_qos_t *q = dds_create_qos();
  if (udlen > 0) dds_qset_userdata(q, ud, udlen);
  dds_entity_t pp = dds_create_participant(domain, q, NULL);
  dds_delete_qos(q);
  return pp;
}

static dds_entity_t rs_writer(dds_entity_t pp, dds_entity_t tp, int rel, int tl, int depth, const void *ud, size_t udlen, int64_t lifespan) {
  dds_qos_t *q = rs_qos(rel, tl, depth, ud, udlen);
  if (lifespan > 0) dds_qset_lifespan(q, lifespan);
  // Transient-local history for late joiners is the durability service's history in Cyclone (default keep
  // last 1), not the writer's: set it to the writer's depth, as rmw_cyclonedds does (/rosout keeps 1000).
  if (tl) dds_qset_durability_service(q, 0, DDS_HISTORY_KEEP_LAST, depth < 1 ? 1 : depth, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
  dds_entity_t w = dds_create_writer(pp, tp, q, NULL);
  dds_delete_qos(q);
  return w;
}

static dds_entity_t rs_reader(dds_entity_t pp, dds_entity_t tp, int rel, int tl, int depth, const void *ud, size_t udlen) {
  dds_qos_t *q = rs_qos(rel, tl, depth, ud, udlen);
  dds_entity_t r = dds_create_reader(pp, tp, q, NULL);
  dds_delete_qos(q);
  return r;
}

// rs_guid_of is an entity's GUID in ddsi's host representation.
static int rs_guid_of(dds_entity_t e, ddsi_guid_t *out) {
  dds_guid_t g;
  if (dds_get_guid(e, &g) < 0) return -1;
  memcpy(out, g.v, sizeof *out);
  *out = nn_ntoh_guid(*out);
  return 0;
}

// rs_catch_up makes a (volatile, reliable) reader start every newly matched non-Cyclone writer as a
// transient-local reader does: out of sync, with a reorder admin of its own from the writer's first
// available sequence number. Without it Cyclone 0.10.2 starts a volatile reader in sync with a non-Cyclone
// writer and skips everything up to the last sequence number of the writer's first heartbeat (gap_end_seq =
// lastseq + 1 in handle_Heartbeat, q_receive.c), so a sample a new Fast DDS writer sent after matching us,
// which reached us before our side knew the writer, is never delivered even if the writer lives on to
// repair it. (Cyclone writers already get an out-of-sync start: ddsi_entity_match.c.) The writer still
// decides what is for us: Cyclone and Fast DDS 2.9 answer a GAP for what they wrote before they matched a
// volatile reader. Set after dds_create_reader: a writer matched in between (the reader's creation, or the
// discovery thread in that instant) starts the old way.
static int rs_catch_up(dds_entity_t rd, const struct ddsi_sertype *st) {
  ddsi_guid_t g;
  struct ddsi_domaingv *gv = ddsrt_atomic_ldvoidp(&st->gv);
  if (gv == NULL || rs_guid_of(rd, &g) < 0) return -1;
  struct thread_state *ts = lookup_thread_state();
  thread_state_awake(ts, gv);
  struct ddsi_reader *r = entidx_lookup_reader_guid(gv->entity_index, &g);
  if (r != NULL) {
    ddsrt_mutex_lock(&r->e.lock);
    r->handle_as_transient_local = 1;
    ddsrt_mutex_unlock(&r->e.lock);
  }
  thread_state_asleep(ts);
  return r != NULL ? 0 : -1;
}

// rs_is_catch_up reads back the flag rs_catch_up sets (1, 0; < 0 on error).
static int rs_is_catch_up(dds_entity_t rd, const struct ddsi_sertype *st) {
  ddsi_guid_t g;
  struct ddsi_domaingv *gv = ddsrt_atomic_ldvoidp(&st->gv);
  if (gv == NULL || rs_guid_of(rd, &g) < 0) return -1;
  struct thread_state *ts = lookup_thread_state();
  thread_state_awake(ts, gv);
  struct ddsi_reader *r = entidx_lookup_reader_guid(gv->entity_index, &g);
  int v = -1;
  if (r != NULL) {
    ddsrt_mutex_lock(&r->e.lock);
    v = r->handle_as_transient_local;
    ddsrt_mutex_unlock(&r->e.lock);
  }
  thread_state_asleep(ts);
  return v;
}

// rs_progress reports, for the writer behind publication handle ih matched by reader rd: the highest
// sequence number it has announced (0 until its first heartbeat) and the next sequence number this reader still
// waits for (everything below it was delivered or declared not for this reader by the writer). 1 when
// found, 0 when the writer is not (or no longer) known, < 0 on error.
static int rs_progress(dds_entity_t rd, const struct ddsi_sertype *st, dds_instance_handle_t ih, int64_t *announced, int64_t *next) {
  ddsi_guid_t rg, pg;
  struct ddsi_domaingv *gv = ddsrt_atomic_ldvoidp(&st->gv);
  if (gv == NULL || rs_guid_of(rd, &rg) < 0) return -1;
  dds_builtintopic_endpoint_t *ep = dds_get_matched_publication_data(rd, ih);
  if (ep == NULL) return 0;
  memcpy(&pg, ep->key.v, sizeof pg);
  pg = nn_ntoh_guid(pg);
  dds_builtintopic_free_endpoint(ep);
  int found = 0;
  struct thread_state *ts = lookup_thread_state();
  thread_state_awake(ts, gv);
  struct ddsi_proxy_writer *pwr = entidx_lookup_proxy_writer_guid(gv->entity_index, &pg);
  if (pwr != NULL) {
    ddsrt_mutex_lock(&pwr->e.lock);
    struct ddsi_pwr_rd_match *m = ddsrt_avl_lookup(&ddsi_pwr_readers_treedef, &pwr->readers, &rg);
    if (m != NULL) {
      // Only a heartbeat announces: a non-Cyclone writer's data is taken before any heartbeat and raises
      // last_seq while the reader still waits for the earlier sequence numbers, which the writer will only
      // declare not for us (GAP) after its next heartbeat, up to 3 s later with Fast DDS.
      *announced = pwr->have_seen_heartbeat ? pwr->last_seq : 0;
      *next = m->in_sync == PRMSS_OUT_OF_SYNC ? nn_reorder_next_seq(m->u.not_in_sync.reorder) : nn_reorder_next_seq(pwr->reorder);
      found = 1;
    }
    ddsrt_mutex_unlock(&pwr->e.lock);
  }
  thread_state_asleep(ts);
  return found;
}

// rs_matched lists up to n matched publication handles of reader rd; returns how many there are.
static int32_t rs_matched(dds_entity_t rd, dds_instance_handle_t *out, size_t n) {
  return dds_get_matched_publications(rd, out, n);
}

static dds_return_t rs_write(dds_entity_t wr, const struct ddsi_sertype *t, const void *buf, size_t n) {
  struct rs_serdata *d = rs_new(t, SDK_DATA, n);
  if (d == NULL) return DDS_RETCODE_OUT_OF_RESOURCES;
  memcpy(d->data, buf, n);
  return dds_writecdr(wr, &d->c);
}

typedef struct { int32_t valid; uint32_t size; int64_t source; uint64_t writer; const unsigned char *data; } rs_taken;

#define RS_MAX_TAKE 32
// rs_take takes up to RS_MAX_TAKE samples; the caller copies data and then calls rs_release.
static int32_t rs_take(dds_entity_t rd, struct ddsi_serdata **bufs, rs_taken *out) {
  dds_sample_info_t si[RS_MAX_TAKE];
  int32_t n = dds_takecdr(rd, bufs, RS_MAX_TAKE, si, DDS_ANY_STATE);
  for (int32_t i = 0; i < n; i++) {
    struct rs_serdata *d = (struct rs_serdata *) bufs[i];
    out[i].valid = si[i].valid_data;
    out[i].size = d->size;
    out[i].data = d->data;
    out[i].source = si[i].source_timestamp;
    out[i].writer = si[i].publication_handle;
  }
  return n;
}
static void rs_release(struct ddsi_serdata **bufs, int32_t n) { for (int32_t i = 0; i < n; i++) ddsi_serdata_unref(bufs[i]); }

static int32_t rs_guid(dds_entity_t e, unsigned char *out) {
  dds_guid_t g;
  dds_return_t rc = dds_get_guid(e, &g);
  if (rc == 0) memcpy(out, g.v, 16);
  return rc;
}
static int64_t rs_handle(dds_entity_t e) {
  dds_instance_handle_t h;
  dds_return_t rc = dds_get_instance_handle(e, &h);
  return rc < 0 ? rc : (int64_t) h;
}
static int32_t rs_pub_matched(dds_entity_t rd) {
  dds_subscription_matched_status_t st;
  dds_return_t rc = dds_get_subscription_matched_status(rd, &st);
  return rc < 0 ? rc : (int32_t) st.current_count;
}
static int32_t rs_sub_matched(dds_entity_t wr) {
  dds_publication_matched_status_t st;
  dds_return_t rc = dds_get_publication_matched_status(wr, &st);
  return rc < 0 ? rc : (int32_t) st.current_count;
}
// rs_waiter makes a waitset with the reader's data-available read condition and a guard condition (Wake).
static dds_entity_t rs_waiter(dds_entity_t pp, dds_entity_t rd, dds_entity_t *guard) {
  dds_entity_t ws = dds_create_waitset(pp);
  if (ws < 0) return ws;
  dds_entity_t rc = dds_create_readcondition(rd, DDS_ANY_STATE);
  dds_entity_t g = dds_create_guardcondition(pp);
  if (rc < 0 || g < 0) { dds_delete(ws); return rc < 0 ? rc : g; }
  dds_waitset_attach(ws, rc, 1);
  dds_waitset_attach(ws, g, 2);
  *guard = g;
  return ws;
}
static dds_return_t rs_wait(dds_entity_t ws, dds_entity_t guard, int64_t timeout) {
  dds_attach_t xs[2];
  dds_return_t n = dds_waitset_wait(ws, xs, 2, timeout);
  for (int i = 0; i < n && i < 2; i++) if (xs[i] == 2) dds_set_guardcondition(guard, false);
  return n;
}
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Available reports whether this binary has the Cyclone DDS layer (built with the ros2 tag).
func Available() bool { return true }

// BuiltVersion is the Cyclone DDS release of the headers this package was compiled against (dds/version.h).
var BuiltVersion = C.GoString(C.rs_built_version())

// The bitfields' places in 0.10.2 (rs_bitfields).
const (
	catchUpByte, catchUpMask     = 240, 0x02
	heartbeatByte, heartbeatMask = 300, 0x02
)

// internals is nil when the libddsc loaded at run time is the release this package was compiled against
// and the internal bitfields are where that release has them; else why not. Checked once, when the package
// loads (init). While it is not nil, Progress returns it and QoS.CatchUp is not applied.
var internals atomic.Pointer[error]

func init() { setInternals(checkInternals()) }

func setInternals(err error) { internals.Store(&err) }

// Internals says whether the reader internals this package uses (QoS.CatchUp, Progress) are on: nil, or
// why they are off (the library loaded at run time is not the release the package was built against). A
// bridge says it at ERROR and in /diagnostics.
func Internals() error { return *internals.Load() }

// SetInternalsForTest turns the internals off with err (nil: checks them again) and returns a function that
// restores the previous state. For tests.
func SetInternalsForTest(err error) (restore func()) {
	prev := internals.Load()
	if err == nil {
		err = checkInternals()
	}
	setInternals(err)
	return func() { internals.Store(prev) }
}

// TestRuntimeLibraryEnv, for tests only, names the libddsc path the load-time check takes for the loaded
// library's (TestObsInternalsOff: a bridge that sees another release turns its internals off).
const TestRuntimeLibraryEnv = "ROSORIN_TEST_DDSC_PATH"

func checkInternals() error {
	var buf [4096]C.char
	path := ""
	if C.rs_ddsc_path(&buf[0], C.size_t(len(buf))) == 0 {
		path = C.GoString(&buf[0])
	}
	if p := os.Getenv(TestRuntimeLibraryEnv); p != "" {
		path = p // tests: a bridge process that believes another libddsc is loaded
	}
	if err := CheckRuntimeVersion(BuiltVersion, path); err != nil {
		return err
	}
	if C.rs_layout_checked() == 0 {
		return fmt.Errorf("the layout of Cyclone %s's internal structs is checked for x86_64 only, not %s: e-stop watch and catch-up off (measure it and add the asserts in ros2/dds/dds_cgo.go)", BuiltVersion, runtime.GOARCH)
	}
	var rb, rm, pb, pm C.int
	if C.rs_bitfields(&rb, &rm, &pb, &pm) != 0 || rb != catchUpByte || rm != catchUpMask || pb != heartbeatByte || pm != heartbeatMask {
		return fmt.Errorf("Cyclone's internal bitfields moved (handle_as_transient_local at byte %d mask %#x, have_seen_heartbeat at byte %d mask %#x; 0.10.2: %d %#x, %d %#x): e-stop watch and catch-up off",
			rb, rm, pb, pm, catchUpByte, catchUpMask, heartbeatByte, heartbeatMask)
	}
	return nil
}

// CheckRuntimeVersion compares the release in the file name of the libddsc loaded at run time (path, its
// real path: libddsc.so.0.10.2) with built. Anything else, a name without a release included, is an error
// that says what to do.
func CheckRuntimeVersion(built, path string) error {
	if path == "" {
		return fmt.Errorf("cannot find the loaded libddsc, so its release is unknown (built against Cyclone DDS %s): e-stop watch and catch-up off", built)
	}
	base := filepath.Base(path)
	const prefix = "libddsc.so."
	v, ok := "", len(base) > len(prefix) && base[:len(prefix)] == prefix
	if ok {
		v = base[len(prefix):]
	}
	if !ok || !isRelease(v) {
		return fmt.Errorf("the loaded libddsc (%s) does not name its release; built against Cyclone DDS %s: e-stop watch and catch-up off", path, built)
	}
	if v != built {
		return fmt.Errorf("the loaded libddsc is Cyclone DDS %s (%s), this binary was built against %s, whose internal structs it reads: e-stop watch and catch-up off; rebuild rosorin-ros2 against the installed cyclonedds-dev (and re-check ros2/dds/dds_cgo.go)", v, path, built)
	}
	return nil
}

// isRelease: digits.digits.digits.
func isRelease(v string) bool {
	parts, n := 0, 0
	for i := 0; i <= len(v); i++ {
		if i == len(v) || v[i] == '.' {
			if n == 0 {
				return false
			}
			parts, n = parts+1, 0
			continue
		}
		if v[i] < '0' || v[i] > '9' {
			return false
		}
		n++
	}
	return parts == 3
}

type ddsError struct {
	op string
	rc C.dds_return_t
}

func (e *ddsError) Error() string {
	return fmt.Sprintf("dds: %s: %s", e.op, C.GoString(C.dds_strretcode(e.rc)))
}

func check(op string, rc C.dds_return_t) error {
	if rc < 0 {
		return &ddsError{op, rc}
	}
	return nil
}

// Participant is a DDS domain participant.
type Participant struct {
	mu     sync.Mutex
	pp     C.dds_entity_t
	topics map[string]topic
	closed bool
}

type topic struct {
	e  C.dds_entity_t
	st *C.struct_ddsi_sertype
}

// NewParticipant joins domain (ROS_DOMAIN_ID) with the participant user data ("enclave=/;" for ROS 2).
// ROS_LOCALHOST_ONLY=1 in the environment creates the domain with the loopback interface prepended to
// CYCLONEDDS_URI, as rmw_cyclonedds does.
func NewParticipant(domain int, userData string) (*Participant, error) {
	if domain < 0 || domain > 232 {
		return nil, fmt.Errorf("dds: domain id %d out of 0..232 (ROS_DOMAIN_ID)", domain)
	}
	if os.Getenv("ROS_LOCALHOST_ONLY") == "1" {
		cfg := `<CycloneDDS><Domain><General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces></General></Domain></CycloneDDS>`
		if u := os.Getenv("CYCLONEDDS_URI"); u != "" {
			cfg += "," + u
		}
		cs := C.CString(cfg)
		d := C.dds_create_domain(C.dds_domainid_t(domain), cs)
		C.free(unsafe.Pointer(cs))
		// PRECONDITION_NOT_MET: the domain exists already in this process (a second participant).
		if d < 0 && d != C.DDS_RETCODE_PRECONDITION_NOT_MET {
			return nil, check("create domain (ROS_LOCALHOST_ONLY=1)", C.dds_return_t(d))
		}
	}
	ud := []byte(userData)
	pp := C.rs_participant(C.dds_domainid_t(domain), cbytes(ud), C.size_t(len(ud)))
	if err := check("create participant", C.dds_return_t(pp)); err != nil {
		return nil, fmt.Errorf("%w (CYCLONEDDS_URI=%q)", err, os.Getenv("CYCLONEDDS_URI"))
	}
	return &Participant{pp: pp, topics: map[string]topic{}}, nil
}

func cbytes(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

func guidOf(e C.dds_entity_t) (GUID, error) {
	var g GUID
	err := check("get guid", C.dds_return_t(C.rs_guid(e, (*C.uchar)(unsafe.Pointer(&g[0])))))
	return g, err
}

// GUID is the participant's GUID.
func (p *Participant) GUID() GUID { g, _ := guidOf(p.pp); return g }

func (p *Participant) topic(name, typeName string) (topic, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return topic{}, fmt.Errorf("dds: participant closed")
	}
	if t, ok := p.topics[name]; ok {
		return t, nil
	}
	cn, ct := C.CString(name), C.CString(typeName)
	defer C.free(unsafe.Pointer(cn))
	defer C.free(unsafe.Pointer(ct))
	var st *C.struct_ddsi_sertype
	e := C.rs_topic(p.pp, cn, ct, &st)
	if err := check("create topic "+name+" ("+typeName+")", C.dds_return_t(e)); err != nil {
		return topic{}, err
	}
	t := topic{e: e, st: st}
	p.topics[name] = t
	return t, nil
}

// Writer writes serialized samples on one topic.
type Writer struct {
	e  C.dds_entity_t
	st *C.struct_ddsi_sertype
}

// NewWriter creates a writer of topic (the DDS name, "rt/cmd_vel") with type typeName, QoS q and endpoint
// user data (rmw_cyclonedds' "serviceid=...;" on a service's endpoints, else empty).
func (p *Participant) NewWriter(topicName, typeName string, q QoS, userData string) (*Writer, error) {
	t, err := p.topic(topicName, typeName)
	if err != nil {
		return nil, err
	}
	ud := []byte(userData)
	e := C.rs_writer(p.pp, t.e, b2i(q.Reliable), b2i(q.TransientLocal), C.int(q.Depth), cbytes(ud), C.size_t(len(ud)), C.int64_t(q.Lifespan))
	if err := check("create writer on "+topicName, C.dds_return_t(e)); err != nil {
		return nil, err
	}
	return &Writer{e: e, st: t.st}, nil
}

func b2i(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// Write sends one serialized sample (header included).
func (w *Writer) Write(b []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("dds: empty sample")
	}
	return check("write", C.rs_write(w.e, w.st, unsafe.Pointer(&b[0]), C.size_t(len(b))))
}

// GUID is the writer's GUID.
func (w *Writer) GUID() GUID { g, _ := guidOf(w.e); return g }

// Handle is the writer's instance handle: what a reader sees as Sample.Writer, and what rmw_cyclonedds puts
// in a service request's header as the client's id.
func (w *Writer) Handle() uint64 { return uint64(C.rs_handle(w.e)) }

// Matched is the number of readers matched now.
func (w *Writer) Matched() (int, error) {
	n := C.rs_sub_matched(w.e)
	return int(n), check("publication matched status", C.dds_return_t(n))
}

// Reader takes serialized samples of one topic.
type Reader struct {
	e, ws, guard C.dds_entity_t
	st           *C.struct_ddsi_sertype
	waitMu       sync.Mutex // held while waiting, so Close deletes nothing under a waiter
	mu           sync.Mutex
	closed       bool
	bufs         [C.RS_MAX_TAKE]*C.struct_ddsi_serdata
	taken        [C.RS_MAX_TAKE]C.rs_taken
}

// NewReader creates a reader of topic with type typeName, QoS q and endpoint user data.
func (p *Participant) NewReader(topicName, typeName string, q QoS, userData string) (*Reader, error) {
	t, err := p.topic(topicName, typeName)
	if err != nil {
		return nil, err
	}
	ud := []byte(userData)
	e := C.rs_reader(p.pp, t.e, b2i(q.Reliable), b2i(q.TransientLocal), C.int(q.Depth), cbytes(ud), C.size_t(len(ud)))
	if err := check("create reader on "+topicName, C.dds_return_t(e)); err != nil {
		return nil, err
	}
	r := &Reader{e: e, st: t.st}
	// With the internals off (Internals), the reader starts new non-Cyclone writers the library's way.
	if q.CatchUp && q.Reliable && !q.TransientLocal && Internals() == nil {
		if C.rs_catch_up(e, t.st) != 0 {
			C.dds_delete(e)
			return nil, fmt.Errorf("dds: reader on %s: cannot make it catch up with new writers (Cyclone internals not as expected)", topicName)
		}
	}
	r.ws = C.rs_waiter(p.pp, e, &r.guard)
	if err := check("create waitset", C.dds_return_t(r.ws)); err != nil {
		C.dds_delete(e)
		return nil, err
	}
	return r, nil
}

// GUID is the reader's GUID.
func (r *Reader) GUID() GUID { g, _ := guidOf(r.e); return g }

// Matched is the number of writers matched now (for the two-publisher rule on cmd_vel).
func (r *Reader) Matched() (int, error) {
	n := C.rs_pub_matched(r.e)
	return int(n), check("subscription matched status", C.dds_return_t(n))
}

// Progress appends, for every writer matched now, the highest sequence number it has announced by
// heartbeat (0 before its first) and the next one this reader waits for (Cyclone's reliable-protocol state,
// which its public API does not show).
// Announced >= Next means the writer has said it wrote samples this reader has not received yet, and that
// the writer has not declared not meant for it (volatile writers answer a GAP for what they wrote before
// they matched this reader). Only reliable writers announce by heartbeat; a best-effort writer's samples
// are only known when they arrive.
func (r *Reader) Progress(dst []WriterProgress) ([]WriterProgress, error) {
	if err := Internals(); err != nil {
		return dst, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	hs, err := r.matchedLocked()
	for _, h := range hs {
		var ann, next C.int64_t
		switch C.rs_progress(r.e, r.st, h, &ann, &next) {
		case 1:
			dst = append(dst, WriterProgress{Writer: uint64(h), Announced: int64(ann), Next: int64(next), Known: true})
		case 0: // gone between the two calls
		default:
			dst = append(dst, WriterProgress{Writer: uint64(h)})
		}
	}
	return dst, err
}

// CatchingUp reports whether the reader starts new writers as a transient-local reader does (QoS.CatchUp
// applied: Cyclone's handle_as_transient_local, read back).
func (r *Reader) CatchingUp() (bool, error) {
	if err := Internals(); err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false, fmt.Errorf("dds: reader closed")
	}
	switch C.rs_is_catch_up(r.e, r.st) {
	case 1:
		return true, nil
	case 0:
		return false, nil
	}
	return false, fmt.Errorf("dds: the reader's internal state cannot be read")
}

// MatchedWriters appends the publication handles of the writers matched now.
func (r *Reader) MatchedWriters(dst []uint64) ([]uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	hs, err := r.matchedLocked()
	for _, h := range hs {
		dst = append(dst, uint64(h))
	}
	return dst, err
}

// matchedLocked lists the publication handles matched now (at most 64); r.mu is held.
func (r *Reader) matchedLocked() ([]C.dds_instance_handle_t, error) {
	if r.closed {
		return nil, fmt.Errorf("dds: reader closed")
	}
	var hs [64]C.dds_instance_handle_t
	n := C.rs_matched(r.e, &hs[0], C.size_t(len(hs)))
	if n < 0 {
		return nil, check("matched publications", C.dds_return_t(n))
	}
	return hs[:min(int(n), len(hs))], nil
}

// FillAllocations is for tests: from now on every sample buffer this process allocates is 16 bytes larger
// than asked and filled with pattern first, as stale heap data would be, so that bytes sent without being
// written on purpose show on the wire. A negative pattern turns it off.
func FillAllocations(pattern int) { C.rs_set_fill(C.int(pattern)) }

// Wait blocks until data may be available, Wake is called, or timeout passes (false, nil). A closed reader
// returns an error.
func (r *Reader) Wait(timeout time.Duration) (bool, error) {
	r.waitMu.Lock()
	defer r.waitMu.Unlock()
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return false, fmt.Errorf("dds: reader closed")
	}
	n := C.rs_wait(r.ws, r.guard, C.int64_t(timeout.Nanoseconds()))
	return n > 0, check("wait", n)
}

// Wake makes a pending Wait return.
func (r *Reader) Wake() { C.dds_set_guardcondition(r.guard, true) }

// Take appends every sample available now (valid data only) to dst.
func (r *Reader) Take(dst []Sample) ([]Sample, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return dst, fmt.Errorf("dds: reader closed")
	}
	for {
		n := C.rs_take(r.e, &r.bufs[0], &r.taken[0])
		if n < 0 {
			return dst, check("take", C.dds_return_t(n))
		}
		for i := 0; i < int(n); i++ {
			tk := &r.taken[i]
			if tk.valid == 0 {
				continue
			}
			dst = append(dst, Sample{
				Data:       C.GoBytes(unsafe.Pointer(tk.data), C.int(tk.size)),
				Writer:     uint64(tk.writer),
				SourceTime: time.Unix(0, int64(tk.source)),
			})
		}
		C.rs_release(&r.bufs[0], n)
		if n < C.RS_MAX_TAKE {
			return dst, nil
		}
	}
}

// Close deletes the reader (a pending Wait returns first).
func (r *Reader) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	r.Wake()
	r.waitMu.Lock()
	defer r.waitMu.Unlock()
	C.dds_delete(r.ws)
	return check("delete reader", C.dds_delete(r.e))
}

// Close deletes the participant and everything it created. Close every Reader first (a Wait in progress
// would otherwise see its waitset deleted under it).
func (p *Participant) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	return check("delete participant", C.dds_delete(p.pp))
}

// Close deletes the writer.
func (w *Writer) Close() error { return check("delete writer", C.dds_delete(w.e)) }
