// Package sros2 reads ROS 2 security (SROS2) the way a Humble node does, and checks the enclave before DDS
// sees it: the environment (ROS_SECURITY_ENABLE, ROS_SECURITY_STRATEGY, ROS_SECURITY_KEYSTORE,
// ROS_SECURITY_ENCLAVE_OVERRIDE and the node's --enclave, as rcl's security.c reads them), the keystore as
// `ros2 security create_keystore` and `create_enclave` lay it out, and the participant properties
// Cyclone DDS 0.10's built-in security plugins take (the dds.sec.* names of DDS Security 1.1, section 9, as
// rmw_cyclonedds_cpp sets them in configure_qos_for_security). It is pure Go; the S/MIME signatures of
// governance.p7s and permissions.p7s are checked by the openssl command (Go's standard library has no
// PKCS#7), with the same call Cyclone's access-control plugin makes (PKCS7_verify with the permissions CA as
// the only trusted certificate, text mode).
//
// Keystore layout (SROS2, Humble):
//
//	<keystore>/public/{ca,identity_ca,permissions_ca}.cert.pem
//	<keystore>/private/{ca,identity_ca,permissions_ca}.key.pem
//	<keystore>/enclaves/governance.xml, governance.p7s
//	<keystore>/enclaves/<enclave>/{cert.pem, key.pem, identity_ca.cert.pem, permissions_ca.cert.pem,
//	                               governance.p7s, permissions.xml, permissions.p7s}
//
// Only the enclave's own files go to DDS; Load checks those: present, the certificate inside its validity
// period and issued by the identity CA, the key the certificate's, both documents signed by the permissions CA
// and parseable, a grant for the certificate's subject that is valid now. Every error names the file.
// CheckDomain adds the domain (a governance rule and an allow rule for ROS_DOMAIN_ID); Resolve turns the
// settings and Load's verdict into what a node does (secure, refuse under Enforce, warn under Permissive).
//
// Differences from rcl, on purpose (fail closed on a robot that moves): ROS_SECURITY_ENABLE and
// ROS_SECURITY_STRATEGY values other than true/false and Enforce/Permissive are errors here, where rcl takes
// any other value as "off" and "Permissive".
//
// The test kit sros2test makes such keystores with Go's crypto/x509 (as SROS2 does with Python's
// cryptography) and `openssl smime -sign` (the S/MIME shape SROS2 writes).
package sros2
