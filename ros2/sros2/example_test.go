package sros2_test

import (
	"fmt"

	"github.com/rosorin/rosorin/ros2/sros2"
)

// A node's security settings from its environment, as rcl reads them, and where its enclave lives.
func ExampleFromEnv() {
	env := map[string]string{
		"ROS_SECURITY_ENABLE":           "true",
		"ROS_SECURITY_STRATEGY":         "Enforce",
		"ROS_SECURITY_KEYSTORE":         "/etc/rosorin/keystore",
		"ROS_SECURITY_ENCLAVE_OVERRIDE": "/rosorin",
	}
	s, err := sros2.FromEnv(func(k string) string { return env[k] }, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Enable, s.Strategy, s.Enclave, sros2.EnclaveDir(s.Keystore, s.Enclave))
	// Output: true Enforce /rosorin /etc/rosorin/keystore/enclaves/rosorin
}
