//go:build ros2 && linux && cgo

// The C side of ros2/dds: see rosorin_dds.h.
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
#include "rosorin_dds.h"

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
_Static_assert(DDS_VERSION_MAJOR == 0 && DDS_VERSION_MINOR == 10 && DDS_VERSION_PATCH == 2, "ros2/dds reads Cyclone 0.10.2's internals: re-check rosorin_dds.c for this version");
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
int rs_layout_checked(void) { return RS_LAYOUT_CHECKED; }

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
int rs_bitfields(int *rd_byte, int *rd_mask, int *pwr_byte, int *pwr_mask) {
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

const char *rs_built_version(void) { return DDS_VERSION; }

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
int rs_ddsc_path(char *buf, size_t n) {
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
void rs_set_fill(int b) { rs_fill = b; }

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

dds_entity_t rs_topic(dds_entity_t pp, const char *name, const char *type_name, struct ddsi_sertype **out) {
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

dds_entity_t rs_participant(dds_domainid_t domain, const void *ud, size_t udlen) {
  dds_qos_t *q = dds_create_qos();
  if (udlen > 0) dds_qset_userdata(q, ud, udlen);
  dds_entity_t pp = dds_create_participant(domain, q, NULL);
  dds_delete_qos(q);
  return pp;
}

dds_entity_t rs_writer(dds_entity_t pp, dds_entity_t tp, int rel, int tl, int depth, const void *ud, size_t udlen, int64_t lifespan) {
  dds_qos_t *q = rs_qos(rel, tl, depth, ud, udlen);
  if (lifespan > 0) dds_qset_lifespan(q, lifespan);
  // Transient-local history for late joiners is the durability service's history in Cyclone (default keep
  // last 1), not the writer's: set it to the writer's depth, as rmw_cyclonedds does (/rosout keeps 1000).
  if (tl) dds_qset_durability_service(q, 0, DDS_HISTORY_KEEP_LAST, depth < 1 ? 1 : depth, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
  dds_entity_t w = dds_create_writer(pp, tp, q, NULL);
  dds_delete_qos(q);
  return w;
}

dds_entity_t rs_reader(dds_entity_t pp, dds_entity_t tp, int rel, int tl, int depth, const void *ud, size_t udlen) {
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
int rs_catch_up(dds_entity_t rd, const struct ddsi_sertype *st) {
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
int rs_is_catch_up(dds_entity_t rd, const struct ddsi_sertype *st) {
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
int rs_progress(dds_entity_t rd, const struct ddsi_sertype *st, dds_instance_handle_t ih, int64_t *announced, int64_t *next) {
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
int32_t rs_matched(dds_entity_t rd, dds_instance_handle_t *out, size_t n) {
  return dds_get_matched_publications(rd, out, n);
}

dds_return_t rs_write(dds_entity_t wr, const struct ddsi_sertype *t, const void *buf, size_t n) {
  struct rs_serdata *d = rs_new(t, SDK_DATA, n);
  if (d == NULL) return DDS_RETCODE_OUT_OF_RESOURCES;
  memcpy(d->data, buf, n);
  return dds_writecdr(wr, &d->c);
}

// rs_take takes up to RS_MAX_TAKE samples; the caller copies data and then calls rs_release.
int32_t rs_take(dds_entity_t rd, struct ddsi_serdata **bufs, rs_taken *out) {
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
void rs_release(struct ddsi_serdata **bufs, int32_t n) { for (int32_t i = 0; i < n; i++) ddsi_serdata_unref(bufs[i]); }

int32_t rs_guid(dds_entity_t e, unsigned char *out) {
  dds_guid_t g;
  dds_return_t rc = dds_get_guid(e, &g);
  if (rc == 0) memcpy(out, g.v, 16);
  return rc;
}
int64_t rs_handle(dds_entity_t e) {
  dds_instance_handle_t h;
  dds_return_t rc = dds_get_instance_handle(e, &h);
  return rc < 0 ? rc : (int64_t) h;
}
int32_t rs_pub_matched(dds_entity_t rd) {
  dds_subscription_matched_status_t st;
  dds_return_t rc = dds_get_subscription_matched_status(rd, &st);
  return rc < 0 ? rc : (int32_t) st.current_count;
}
int32_t rs_sub_matched(dds_entity_t wr) {
  dds_publication_matched_status_t st;
  dds_return_t rc = dds_get_publication_matched_status(wr, &st);
  return rc < 0 ? rc : (int32_t) st.current_count;
}
// rs_waiter makes a waitset with the reader's data-available read condition and a guard condition (Wake).
dds_entity_t rs_waiter(dds_entity_t pp, dds_entity_t rd, dds_entity_t *guard) {
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
dds_return_t rs_wait(dds_entity_t ws, dds_entity_t guard, int64_t timeout) {
  dds_attach_t xs[2];
  dds_return_t n = dds_waitset_wait(ws, xs, 2, timeout);
  for (int i = 0; i < n && i < 2; i++) if (xs[i] == 2) dds_set_guardcondition(guard, false);
  return n;
}
