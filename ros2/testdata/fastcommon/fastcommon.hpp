/* What the Fast DDS peers of ros2's tests share (../fastpeer/fastpeer.cpp, ../fastpeer/fastparams.cpp,
 * ../fastobspeer/fastobspeer.cpp): the participant, publisher and subscriber as rmw_fastrtps_cpp makes them on
 * loopback, the QoS profiles applied as rmw_fastrtps applies them, topics, writers and readers, and one-line
 * output. Each peer includes it after its fastddsgen header. Fast DDS 2.9 (Debian bookworm's libfastrtps). */
#ifndef ROSORIN_FASTCOMMON_HPP
#define ROSORIN_FASTCOMMON_HPP

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/publisher/DataWriter.hpp>
#include <fastdds/dds/publisher/DataWriterListener.hpp>
#include <fastdds/dds/publisher/Publisher.hpp>
#include <fastdds/dds/subscriber/DataReader.hpp>
#include <fastdds/dds/subscriber/DataReaderListener.hpp>
#include <fastdds/dds/subscriber/SampleInfo.hpp>
#include <fastdds/dds/subscriber/Subscriber.hpp>
#include <fastdds/dds/topic/TypeSupport.hpp>
#include <fastdds/rtps/transport/UDPv4TransportDescriptor.h>
#include <fastrtps/utils/IPLocator.h>

using namespace eprosima::fastdds::dds;
namespace rtps = eprosima::fastrtps::rtps;

static DomainParticipant *pp;
static Publisher *pub;
static Subscriber *sub;

/* stdout is shared by the main thread and Fast DDS's listener threads: one whole line at a time. */
static std::mutex out_mu;
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  std::lock_guard<std::mutex> g(out_mu);
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fflush(stdout);
}

static inline void die(const std::string &what) {
  fprintf(stderr, "%s: %s\n", program_invocation_short_name, what.c_str());
  exit(1);
}

/* The participant as rmw_fastrtps_shared_cpp's create_participant makes it with ROS_LOCALHOST_ONLY=1:
 * builtin transports off and one UDPv4 transport whitelisted to 127.0.0.1 (Humble adds shared memory too:
 * left out, it only ever carries Fast DDS to Fast DDS), participant name = the enclave, user data
 * "enclave=/;" with its terminating NUL (rmw sizes it snprintf(...) + 1), discovery histories that may
 * reallocate. Unlike Humble (which keeps Fast DDS's default locators: multicast 239.255.0.1 for discovery),
 * every locator is unicast on 127.0.0.1: the same footing as Cyclone's dds.LoopbackConfig. ROS_DOMAIN_ID from
 * the environment. */
/* ROS 2 security (SROS2) as rmw_fastrtps_shared_cpp (Humble) applies it: with ROS_SECURITY_ENABLE=true the
 * builtin plugins of DDS Security (PKI-DH, Access-Permissions, AES-GCM-GMAC) with the enclave's files as file://
 * URIs (rmw_dds_common's get_security_files: <keystore>/enclaves/<ROS_SECURITY_ENCLAVE_OVERRIDE or />), as
 * participant properties; the enclave becomes the participant's name and user data. NULL when security is off.
 * A participant Fast DDS refuses is exit 1 (make_participant), as rcl's Enforce. */
static inline const char *apply_security(DomainParticipantQos &q) {
  const char *en = getenv("ROS_SECURITY_ENABLE"), *ks = getenv("ROS_SECURITY_KEYSTORE");
  const char *enclave = getenv("ROS_SECURITY_ENCLAVE_OVERRIDE");
  if (en == nullptr || strcmp(en, "true") != 0) return nullptr;
  if (ks == nullptr || *ks == 0) die("ROS_SECURITY_ENABLE=true but ROS_SECURITY_KEYSTORE is not set");
  if (enclave == nullptr || *enclave == 0) enclave = "/";
  std::string dir = std::string("file://") + ks + "/enclaves" + (strcmp(enclave, "/") == 0 ? "" : enclave) + "/";
  auto &props = q.properties().properties();
  props.emplace_back("dds.sec.auth.plugin", "builtin.PKI-DH");
  props.emplace_back("dds.sec.auth.builtin.PKI-DH.identity_ca", dir + "identity_ca.cert.pem");
  props.emplace_back("dds.sec.auth.builtin.PKI-DH.identity_certificate", dir + "cert.pem");
  props.emplace_back("dds.sec.auth.builtin.PKI-DH.private_key", dir + "key.pem");
  props.emplace_back("dds.sec.crypto.plugin", "builtin.AES-GCM-GMAC");
  props.emplace_back("dds.sec.access.plugin", "builtin.Access-Permissions");
  props.emplace_back("dds.sec.access.builtin.Access-Permissions.permissions_ca", dir + "permissions_ca.cert.pem");
  props.emplace_back("dds.sec.access.builtin.Access-Permissions.governance", dir + "governance.p7s");
  props.emplace_back("dds.sec.access.builtin.Access-Permissions.permissions", dir + "permissions.p7s");
  return enclave;
}

static inline DomainParticipant *make_participant() {
  DomainParticipantFactory *f = DomainParticipantFactory::get_instance();
  DomainParticipantQos q = f->get_default_participant_qos();
  const char *secure = apply_security(q);
  std::string enclave = std::string("enclave=") + (secure ? secure : "/") + ";";
  q.name(secure ? secure : "/");
  /* with its terminating NUL, as rmw_fastrtps' user data does */
  q.user_data().data_vec(std::vector<rtps::octet>(enclave.c_str(), enclave.c_str() + enclave.size() + 1));
  q.wire_protocol().builtin.readerHistoryMemoryPolicy = rtps::PREALLOCATED_WITH_REALLOC_MEMORY_MODE;
  q.wire_protocol().builtin.writerHistoryMemoryPolicy = rtps::PREALLOCATED_WITH_REALLOC_MEMORY_MODE;

  q.transport().use_builtin_transports = false;
  auto udp = std::make_shared<eprosima::fastdds::rtps::UDPv4TransportDescriptor>();
  udp->interfaceWhiteList.emplace_back("127.0.0.1");
  /* Initial peers without a port expand to the discovery ports of participant indices 0..60 on 127.0.0.1
   * (7400 + 250*domain + 10 + 2*i): the tests' Cyclone uses ParticipantIndex auto up to
   * MaxAutoParticipantIndex 60, and Fast DDS's own participants of this machine land there as well (a port
   * taken by another process moves this one up by 2). Cyclone answers a new participant at once. */
  udp->maxInitialPeersRange = 61;
  q.transport().user_transports.push_back(udp);

  rtps::Locator_t lo; /* UDPv4, port 0: Fast DDS fills in the well-known port of this participant */
  rtps::IPLocator::setIPv4(lo, 127, 0, 0, 1);
  q.wire_protocol().builtin.metatrafficUnicastLocatorList.push_back(lo); /* SPDP/SEDP */
  q.wire_protocol().default_unicast_locator_list.push_back(lo);          /* user data */
  q.wire_protocol().builtin.initialPeersList.push_back(lo);
  /* metatrafficMulticastLocatorList and default_multicast_locator_list stay empty: Fast DDS adds its
   * default multicast locator only when both the unicast and multicast metatraffic lists are empty. */

  const char *dom = getenv("ROS_DOMAIN_ID");
  DomainParticipant *p = f->create_participant(dom && *dom ? atoi(dom) : 0, q);
  if (p == nullptr) die("cannot create the participant");
  /* rmw_fastrtps: one publisher and one subscriber per participant, default QoS. */
  pub = p->create_publisher(PUBLISHER_QOS_DEFAULT);
  sub = p->create_subscriber(SUBSCRIBER_QOS_DEFAULT);
  if (pub == nullptr || sub == nullptr) die("cannot create the publisher or subscriber");
  return p;
}

static inline void cleanup() {
  pp->delete_contained_entities();
  DomainParticipantFactory::get_instance()->delete_participant(pp);
}

/* topic registers PubSubType's type under its IDL name (fastddsgen's setName: "geometry_msgs::msg::dds_::Twist_",
 * what rosidl_typesupport_fastrtps names it) without type object or type information, as rmw_fastrtps'
 * TypeSupport does, and creates the topic (or finds it: a topic may have two writers, or two readers). */
template <class PubSubType> static Topic *topic(const std::string &name) {
  TypeSupport ts(new PubSubType());
  ts->auto_fill_type_object(false);
  ts->auto_fill_type_information(false);
  if (pp->find_type(ts.get_type_name()) == nullptr && ts.register_type(pp) != ReturnCode_t::RETCODE_OK)
    die("cannot register type " + ts.get_type_name());
  if (TopicDescription *d = pp->lookup_topicdescription(name)) return static_cast<Topic *>(d);
  Topic *t = pp->create_topic(name, ts.get_type_name(), TOPIC_QOS_DEFAULT);
  if (t == nullptr) die("cannot create topic " + name);
  return t;
}

/* The rmw QoS profile applied over Fast DDS's defaults as rmw_fastrtps does (qos.cpp, publisher.cpp,
 * subscription.cpp): synchronous publication (Humble's default RMW_FASTRTPS_PUBLICATION_MODE), history
 * memory that may reallocate, data sharing off, then history, durability and reliability from the profile. */
struct Profile {
  bool reliable, transient_local;
  int depth; /* 0 = keep all */
};
static const Profile kDefault = {true, false, 10};       /* rmw_qos_profile_default */
static const Profile kSensorData = {false, false, 5};    /* rmw_qos_profile_sensor_data */
static const Profile kLatched = {true, true, 1};         /* transient-local, keep last 1 */
static const Profile kDiscoveryReader = {true, true, 0}; /* ros_discovery_info's reader: keep all */

template <class Q> static void apply(Q &q, const Profile &p) {
  q.endpoint().history_memory_policy = rtps::PREALLOCATED_WITH_REALLOC_MEMORY_MODE;
  q.data_sharing().off();
  q.history().kind = p.depth > 0 ? KEEP_LAST_HISTORY_QOS : KEEP_ALL_HISTORY_QOS;
  if (p.depth > 0) q.history().depth = p.depth;
  q.durability().kind = p.transient_local ? TRANSIENT_LOCAL_DURABILITY_QOS : VOLATILE_DURABILITY_QOS;
  q.reliability().kind = p.reliable ? RELIABLE_RELIABILITY_QOS : BEST_EFFORT_RELIABILITY_QOS;
}

static inline DataWriter *writer(Topic *t, const Profile &p, DataWriterListener *l = nullptr) {
  DataWriterQos q = pub->get_default_datawriter_qos();
  q.publish_mode().kind = eprosima::fastrtps::SYNCHRONOUS_PUBLISH_MODE;
  apply(q, p);
  DataWriter *w = pub->create_datawriter(t, q, l);
  if (w == nullptr) die("cannot create a writer on " + t->get_name());
  return w;
}

/* Take: a reader listener that takes every sample (on Fast DDS's receive thread) and hands the valid ones to
 * fn; it prints "matched TOPIC N" when a writer comes or goes (a test waits for it before a change on a
 * volatile topic that it expects to see). */
template <class T> struct Take : DataReaderListener {
  std::string name;
  std::function<void(T &, const SampleInfo &)> fn;
  Take(std::string n, std::function<void(T &, const SampleInfo &)> f) : name(std::move(n)), fn(std::move(f)) {}
  void on_data_available(DataReader *r) override {
    T m;
    SampleInfo si;
    while (r->take_next_sample(&m, &si) == ReturnCode_t::RETCODE_OK)
      if (si.valid_data) fn(m, si);
  }
  void on_subscription_matched(DataReader *, const SubscriptionMatchedStatus &st) override {
    say("matched %s %d\n", name.c_str(), st.current_count);
  }
};
static std::vector<std::unique_ptr<DataReaderListener>> listeners; /* outlive their readers */

/* reader makes a reader of PubSubType's messages on topic name with profile p; fn gets every valid sample. */
template <class PubSubType>
static DataReader *reader(const std::string &name, const Profile &p,
                          std::function<void(typename PubSubType::type &, const SampleInfo &)> fn) {
  Topic *t = topic<PubSubType>(name);
  DataReaderQos q = sub->get_default_datareader_qos();
  apply(q, p);
  listeners.emplace_back(new Take<typename PubSubType::type>(name, std::move(fn)));
  DataReader *r = sub->create_datareader(t, q, listeners.back().get());
  if (r == nullptr) die("cannot create a reader on " + name);
  return r;
}

#endif
