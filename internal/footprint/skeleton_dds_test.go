//go:build ros2 && linux && cgo

package footprint

import (
	"math"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/ros2"
	"github.com/rosorin/rosorin/ros2/dds"
)

func init() { ddsSkeleton = skelDDS }

// skelDDS is the bridge's publishing with none of its reading: a node with the bridge's heaviest topics, each
// stream written from a goroutine of its own at the rate the driver's streams have on the floor world (IMU
// 110 Hz, odometry and its transform 50 Hz, a 500-ray scan 10 Hz, battery 1 Hz), nobody subscribed.
func skelDDS(c *skelCounts) error {
	done := terminated()
	domain, _ := strconv.Atoi(os.Getenv("ROS_DOMAIN_ID"))
	n, err := ros2.NewNode(domain, "", "footprint_skeleton")
	if err != nil {
		return err
	}
	defer n.Close()
	imu, err := n.Publisher("imu/data_raw", "sensor_msgs/msg/Imu", dds.Default)
	if err != nil {
		return err
	}
	odom, err := n.Publisher("wheel/odom", "nav_msgs/msg/Odometry", dds.Default)
	if err != nil {
		return err
	}
	tf, err := n.Publisher("/tf", "tf2_msgs/msg/TFMessage", dds.Default)
	if err != nil {
		return err
	}
	scan, err := n.Publisher("scan", "sensor_msgs/msg/LaserScan", dds.SensorData)
	if err != nil {
		return err
	}
	bat, err := n.Publisher("battery", "sensor_msgs/msg/BatteryState", dds.Default)
	if err != nil {
		return err
	}
	every := func(period time.Duration, count *uint64, publish func(now time.Time) error) {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				if publish(now) == nil {
					atomic.AddUint64(count, 1)
				}
			}
		}
	}
	go every(time.Second/110, &c.IMUPub, func(now time.Time) error {
		m := api.IMU{Stamp: now, FrameID: "imu_link", AngularVelocity: [3]float64{0, 0, 0.1}, LinearAcceleration: [3]float64{0, 0, 9.8}}
		m.OrientationCovariance[0] = -1
		return imu.Publish(ros2.IMUMsg(&m))
	})
	go every(20*time.Millisecond, &c.OdomPub, func(now time.Time) error {
		o := api.Odom{Stamp: now, FrameID: "odom", ChildFrameID: "base_footprint", X: 1, QW: 1, Twist: api.Twist{VX: 0.05}}
		if err := odom.Publish(ros2.OdomMsg(&o)); err != nil {
			return err
		}
		return tf.Publish(ros2.OdomTransform(&o))
	})
	go every(100*time.Millisecond, &c.ScanPub, func(now time.Time) error {
		s := api.Scan{Stamp: now, FrameID: "laser", ScanTime: 0.1, AngleMax: 2 * math.Pi, AngleIncrement: 2 * math.Pi / 500,
			RangeMin: 0.05, RangeMax: 12, Ranges: make(api.Ranges, 500)}
		for i := range s.Ranges {
			s.Ranges[i] = 1 + float32(i%7)/10
		}
		return scan.Publish(ros2.ScanMsg(&s))
	})
	var batteries uint64
	go every(time.Second, &batteries, func(now time.Time) error {
		return bat.Publish(ros2.BatteryMsg(&api.Battery{Stamp: now, Voltage: 11.9}))
	})
	<-done
	return nil
}
