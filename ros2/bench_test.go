//go:build ros2 && linux && cgo

package ros2_test

import (
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/ros2"
	"github.com/rosorin/rosorin/ros2/dds"
)

// BenchmarkPublishIMU is one imu/data_raw message: the driver's record converted, CDR-encoded and written
// (no subscriber matched: the DDS write without the network).
func BenchmarkPublishIMU(b *testing.B) {
	n, err := ros2.NewNode(0, "/bench", "bench_node")
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	p, err := n.Publisher("imu/data_raw", "sensor_msgs/msg/Imu", dds.Default)
	if err != nil {
		b.Fatal(err)
	}
	m := api.IMU{Stamp: time.Now(), FrameID: "imu_link", AngularVelocity: [3]float64{0, 0, 0.1}, LinearAcceleration: [3]float64{0, 0, 9.8}}
	m.OrientationCovariance[0] = -1
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Publish(ros2.IMUMsg(&m)); err != nil {
			b.Fatal(err)
		}
	}
}
