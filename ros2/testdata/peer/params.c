/* A parameter client on Cyclone DDS's own typed API (idlc code of params.idl), as `ros2 param` is one: it
 * calls rosorin_board_driver's six rcl_interfaces services with rmw_cyclonedds' 16-byte request header and
 * prints every /parameter_events sample. Commands on stdin, one per line; answers on stdout:
 *
 *   list                          -> "list N NAME..."
 *   get NAME...                   -> "get N VALUE..."   (VALUE: d:0.3 i:1 b:1 s:text a:1,0.765,0 n: (not set))
 *   types NAME...                 -> "types N TYPE..."
 *   describe NAME                 -> "describe N NAME TYPE READ_ONLY FROM TO | CONSTRAINTS" (FROM TO: - - without range)
 *   set NAME VALUE...             -> "set I SUCCESS REASON" per parameter (VALUE as get prints it)
 *   seta NAME VALUE...            -> "seta SUCCESS REASON" (set_parameters_atomically)
 *   bench N NAME                  -> N get calls one after the other: "bench N MEDIAN_US P99_US MAX_US"
 *   (any time)                    -> "event NODE NEW CHANGED [NAME VALUE]..." (the changed ones listed)
 *
 * "ready" once every service is matched both ways and the event reader is up; "error ..." on failure.
 * NAMESPACE comes from ROSORIN_NS ("" or "/robot1"); ROS_DOMAIN_ID and CYCLONEDDS_URI from the environment. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dds/dds.h"
#include "params.h"

typedef rcl_interfaces_msg_dds__ParameterValue_ PV;
typedef rcl_interfaces_msg_dds__Parameter_ P;

static dds_entity_t pp, events;

enum { LIST, GET, TYPES, DESCRIBE, SET, SETA, NSRV };
static const char *names[NSRV] = {"list_parameters", "get_parameters", "get_parameter_types",
                                  "describe_parameters", "set_parameters", "set_parameters_atomically"};
static const dds_topic_descriptor_t *reqd[NSRV] = {
  &rcl_interfaces_srv_dds__ListParameters_Request__desc, &rcl_interfaces_srv_dds__GetParameters_Request__desc,
  &rcl_interfaces_srv_dds__GetParameterTypes_Request__desc, &rcl_interfaces_srv_dds__DescribeParameters_Request__desc,
  &rcl_interfaces_srv_dds__SetParameters_Request__desc, &rcl_interfaces_srv_dds__SetParametersAtomically_Request__desc};
static const dds_topic_descriptor_t *repd[NSRV] = {
  &rcl_interfaces_srv_dds__ListParameters_Response__desc, &rcl_interfaces_srv_dds__GetParameters_Response__desc,
  &rcl_interfaces_srv_dds__GetParameterTypes_Response__desc, &rcl_interfaces_srv_dds__DescribeParameters_Response__desc,
  &rcl_interfaces_srv_dds__SetParameters_Response__desc, &rcl_interfaces_srv_dds__SetParametersAtomically_Response__desc};
static dds_entity_t w[NSRV], r[NSRV], ws[NSRV];
static uint64_t id[NSRV];
static int64_t seq;

/* Every request and response starts with the header. */
typedef struct { uint64_t client_id; int64_t seq; } hdr_t;

static dds_qos_t *qos(int depth) {
  dds_qos_t *q = dds_create_qos();
  dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_MSECS(100));
  dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
  dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
  return q;
}

static dds_entity_t topic(const char *name, const dds_topic_descriptor_t *d) {
  dds_entity_t t = dds_create_topic(pp, d, name, NULL, NULL);
  if (t < 0) { printf("error topic %s: %s\n", name, dds_strretcode(t)); exit(1); }
  return t;
}

static void print_value(const PV *v) {
  switch (v->type) {
  case 1: printf(" b:%d", v->bool_value); break;
  case 2: printf(" i:%lld", (long long) v->integer_value); break;
  case 3: printf(" d:%.17g", v->double_value); break;
  case 4: printf(" s:%s", v->string_value); break;
  case 8:
    printf(" a:");
    for (uint32_t i = 0; i < v->double_array_value._length; i++) printf("%s%.17g", i ? "," : "", v->double_array_value._buffer[i]);
    break;
  default: printf(" n:%d", v->type);
  }
}

/* parse_value reads "d:0.3", "i:2", "b:1", "s:x", "a:1,2,3" (and "n:" for PARAMETER_NOT_SET). */
static int parse_value(const char *s, PV *v) {
  memset(v, 0, sizeof *v);
  v->string_value = "";
  if (strlen(s) < 2 || s[1] != ':') return -1;
  const char *x = s + 2;
  switch (s[0]) {
  case 'b': v->type = 1; v->bool_value = atoi(x) != 0; break;
  case 'i': v->type = 2; v->integer_value = atoll(x); break;
  case 'd': v->type = 3; v->double_value = strtod(x, NULL); break;
  case 's': v->type = 4; v->string_value = (char *) x; break;
  case 'n': v->type = 0; break;
  case 'a': {
    v->type = 8;
    static double buf[64];
    uint32_t n = 0;
    char *end;
    while (*x && n < 64) { buf[n++] = strtod(x, &end); x = *end == ',' ? end + 1 : end; if (end == x && *x) break; }
    v->double_array_value._buffer = buf;
    v->double_array_value._length = v->double_array_value._maximum = n;
    break;
  }
  default: return -1;
  }
  return 0;
}

/* call writes req (its header filled in here) on service i and waits up to 5 s for the reply with the same
 * header: returns the loaned sample (give it back with done()) or NULL. */
static void *loan[1];
static dds_sample_info_t loaninfo[1];
static void *call(int i, void *req) {
  hdr_t *h = req;
  h->client_id = id[i];
  h->seq = ++seq;
  if (dds_write(w[i], req) < 0) return NULL;
  dds_time_t deadline = dds_time() + DDS_SECS(5);
  while (dds_time() < deadline) {
    dds_waitset_wait_until(ws[i], NULL, 0, deadline);
    for (;;) {
      loan[0] = NULL;
      int n = dds_take(r[i], loan, loaninfo, 1, 1);
      if (n <= 0) break;
      hdr_t *rh = loan[0];
      if (loaninfo[0].valid_data && rh->client_id == id[i] && rh->seq == seq) return loan[0];
      dds_return_loan(r[i], loan, n);
    }
  }
  return NULL;
}
static void done(int i) { dds_return_loan(r[i], loan, 1); }

static void take_events(void) {
  void *s[8] = {0};
  dds_sample_info_t si[8];
  int n = dds_take(events, s, si, 8, 8);
  for (int k = 0; k < n; k++) {
    if (!si[k].valid_data) continue;
    rcl_interfaces_msg_dds__ParameterEvent_ *e = s[k];
    printf("event %s %u %u", e->node, e->new_parameters._length, e->changed_parameters._length);
    for (uint32_t j = 0; j < e->changed_parameters._length; j++) {
      printf(" %s", e->changed_parameters._buffer[j].name);
      print_value(&e->changed_parameters._buffer[j].value);
    }
    printf("\n");
  }
  if (n > 0) dds_return_loan(events, s, n);
  fflush(stdout);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static void command(char *line) {
  char *argv[64];
  int argc = 0;
  for (char *t = strtok(line, " \t\n"); t && argc < 64; t = strtok(NULL, " \t\n")) argv[argc++] = t;
  if (argc == 0) return;
  const char *c = argv[0];
  if (strcmp(c, "list") == 0) {
    rcl_interfaces_srv_dds__ListParameters_Request_ q = {0};
    rcl_interfaces_srv_dds__ListParameters_Response_ *a = call(LIST, &q);
    if (!a) { printf("error list: no reply\n"); return; }
    printf("list %u", a->result.names._length);
    for (uint32_t i = 0; i < a->result.names._length; i++) printf(" %s", a->result.names._buffer[i]);
    printf("\n");
    done(LIST);
  } else if (strcmp(c, "get") == 0 || strcmp(c, "types") == 0 || strcmp(c, "describe") == 0) {
    int s = c[0] == 'g' ? GET : c[0] == 't' ? TYPES : DESCRIBE;
    /* The three requests have the same layout. */
    rcl_interfaces_srv_dds__GetParameters_Request_ q = {.names = {._length = argc - 1, ._maximum = argc - 1, ._buffer = argv + 1}};
    void *a = call(s, &q);
    if (!a) { printf("error %s: no reply\n", c); return; }
    if (s == GET) {
      rcl_interfaces_srv_dds__GetParameters_Response_ *m = a;
      printf("get %u", m->values._length);
      for (uint32_t i = 0; i < m->values._length; i++) print_value(&m->values._buffer[i]);
    } else if (s == TYPES) {
      rcl_interfaces_srv_dds__GetParameterTypes_Response_ *m = a;
      printf("types %u", m->types._length);
      for (uint32_t i = 0; i < m->types._length; i++) printf(" %u", m->types._buffer[i]);
    } else {
      rcl_interfaces_srv_dds__DescribeParameters_Response_ *m = a;
      printf("describe %u", m->descriptors._length);
      for (uint32_t i = 0; i < m->descriptors._length; i++) {
        rcl_interfaces_msg_dds__ParameterDescriptor_ *d = &m->descriptors._buffer[i];
        printf(" %s %u %d", d->name, d->type, d->read_only);
        if (d->floating_point_range._length == 1)
          printf(" %.17g %.17g", d->floating_point_range._buffer[0].from_value, d->floating_point_range._buffer[0].to_value);
        else
          printf(" - -");
        printf(" | %s", d->additional_constraints);
      }
    }
    printf("\n");
    done(s);
  } else if (strcmp(c, "set") == 0 || strcmp(c, "seta") == 0) {
    int s = c[3] == 'a' ? SETA : SET;
    P ps[16];
    int n = 0;
    for (int i = 1; i + 1 < argc && n < 16; i += 2) {
      ps[n].name = argv[i];
      if (parse_value(argv[i + 1], &ps[n].value) < 0) { printf("error value %s\n", argv[i + 1]); return; }
      n++;
    }
    rcl_interfaces_srv_dds__SetParameters_Request_ q = {.parameters = {._length = n, ._maximum = n, ._buffer = ps}};
    void *a = call(s, &q);
    if (!a) { printf("error %s: no reply\n", c); return; }
    if (s == SET) {
      rcl_interfaces_srv_dds__SetParameters_Response_ *m = a;
      for (uint32_t i = 0; i < m->results._length; i++)
        printf("set %u %d %s\n", i, m->results._buffer[i].successful, m->results._buffer[i].reason);
      if (m->results._length == 0) printf("set none\n");
    } else {
      rcl_interfaces_srv_dds__SetParametersAtomically_Response_ *m = a;
      printf("seta %d %s\n", m->result.successful, m->result.reason);
    }
    done(s);
  } else if (strcmp(c, "bench") == 0 && argc == 3) {
    int n = atoi(argv[1]);
    if (n < 1 || n > 10000) { printf("error bench count\n"); return; }
    double *us = malloc(n * sizeof *us);
    for (int i = 0; i < n; i++) {
      rcl_interfaces_srv_dds__GetParameters_Request_ q = {.names = {._length = 1, ._maximum = 1, ._buffer = argv + 2}};
      struct timespec t0, t1;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      rcl_interfaces_srv_dds__GetParameters_Response_ *m = call(GET, &q);
      clock_gettime(CLOCK_MONOTONIC, &t1);
      if (!m || m->values._length != 1) { printf("error bench: call %d failed\n", i); if (m) done(GET); free(us); return; }
      done(GET);
      us[i] = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) / 1e3;
    }
    qsort(us, n, sizeof *us, cmp);
    int p99 = (int) (0.99 * (n - 1) + 0.5);
    printf("bench %d %.0f %.0f %.0f\n", n, us[n / 2], us[p99], us[n - 1]);
    free(us);
  } else {
    printf("error unknown command %s\n", c);
  }
  fflush(stdout);
}

int main(void) {
  dds_qos_t *pq = dds_create_qos();
  dds_qset_userdata(pq, "enclave=/;", 10);
  const char *dom = getenv("ROS_DOMAIN_ID");
  pp = dds_create_participant(dom && *dom ? (dds_domainid_t) atoi(dom) : 0, pq, NULL);
  dds_delete_qos(pq);
  if (pp < 0) { printf("error participant: %s\n", dds_strretcode(pp)); return 1; }
  const char *ns = getenv("ROSORIN_NS");
  dds_qos_t *q = qos(1000);
  events = dds_create_reader(pp, topic("rt/parameter_events", &rcl_interfaces_msg_dds__ParameterEvent__desc), q, NULL);
  for (int i = 0; i < NSRV; i++) {
    char rq[300], rr[300];
    snprintf(rq, sizeof rq, "rq%s/rosorin_board_driver/%sRequest", ns ? ns : "", names[i]);
    snprintf(rr, sizeof rr, "rr%s/rosorin_board_driver/%sReply", ns ? ns : "", names[i]);
    w[i] = dds_create_writer(pp, topic(rq, reqd[i]), q, NULL);
    r[i] = dds_create_reader(pp, topic(rr, repd[i]), q, NULL);
    if (w[i] < 0 || r[i] < 0) { printf("error endpoints %s\n", names[i]); return 1; }
    dds_get_instance_handle(w[i], &id[i]);
    ws[i] = dds_create_waitset(pp);
    dds_waitset_attach(ws[i], dds_create_readcondition(r[i], DDS_ANY_STATE), 0);
  }
  dds_delete_qos(q);
  for (int k = 0;; k++) {
    int ok = 1;
    for (int i = 0; i < NSRV; i++) {
      dds_publication_matched_status_t a;
      dds_subscription_matched_status_t b;
      if (dds_get_publication_matched_status(w[i], &a) != 0 || dds_get_subscription_matched_status(r[i], &b) != 0 ||
          a.current_count == 0 || b.current_count == 0)
        ok = 0;
    }
    if (ok) break;
    if (k >= 30000) { printf("error services not available in 30 s\n"); return 2; }
    take_events();
    dds_sleepfor(DDS_MSECS(1));
  }
  printf("ready\n");
  fflush(stdout);
  char line[4096];
  for (;;) {
    struct pollfd pfd = {.fd = 0, .events = POLLIN};
    if (poll(&pfd, 1, 10) > 0) {
      if (!fgets(line, sizeof line, stdin)) break;
      command(line);
    }
    take_events();
  }
  dds_delete(pp);
  return 0;
}
