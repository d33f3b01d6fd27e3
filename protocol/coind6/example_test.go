package coind6_test

import (
	"fmt"
	"time"

	"github.com/rosorin/rosorin/protocol/coind6"
)

// A Parser finds the checksummed packets in the raw LiDAR stream; Decode turns one into angles and
// distances. The stream here starts with the tail of a packet, as any capture does.
func ExampleParser() {
	stream := []byte{0x01, 0x4e, 0x01}                                                                    // the end of a packet whose start was missed
	stream = append(stream, 0xaa, 0x55, 0xc9, 0x01, 0x7b, 0xb3, 0x7b, 0xb3, 0x2c, 0x54, 0x4c, 0x03, 0x00) // chapter 14

	var p coind6.Parser
	p.Feed(stream, func(pkt []byte) { // pkt is valid only during this call
		dp, err := coind6.Decode(pkt)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, pt := range dp.AppendPoints(nil) {
			fmt.Printf("ring start %v: %v deg, %d mm, intensity %#x\n", dp.RingStart(), pt.AngleDeg, pt.DistMM, pt.Intensity)
		}
	})
	fmt.Printf("%+v\n", p.Stats())
	// Output:
	// ring start true: 358.953125 deg, 0 mm, intensity 0x4c
	// {Packets:1 BadChecksum:0 SkippedBytes:3}
}

// An Assembler turns the packets of one revolution into a scan of 400 bins, handed out when the next
// revolution starts, stamped with the arrival of its own first packet.
func ExampleAssembler() {
	start := time.Date(2026, 9, 26, 23, 54, 0, 0, time.UTC)
	ring := coind6.Packet{CT: 0xC9, FSA: coind6.DegToRaw(359), LSA: coind6.DegToRaw(359), Samples: make([]coind6.Sample, 1)}
	wall := coind6.Packet{FSA: coind6.DegToRaw(80), LSA: coind6.DegToRaw(100), Samples: make([]coind6.Sample, 25)}
	for i := range wall.Samples {
		wall.Samples[i] = coind6.Sample{DistMM: 1500, Intensity: 200}
	}
	wall.Samples[0].DistMM = 60 // a self-return: kept in the data, below RangeMin

	var stream []byte
	for _, p := range []coind6.Packet{ring, wall, ring} {
		stream, _ = coind6.AppendEncode(stream, p)
	}

	a := coind6.NewAssembler(coind6.DefaultScanConfig())
	arrival := []time.Duration{0, 50 * time.Millisecond, 100 * time.Millisecond} // from the port reader's clock
	var parser coind6.Parser
	n := 0
	parser.Feed(stream, func(pkt []byte) {
		p, err := coind6.Decode(pkt)
		if err != nil {
			return
		}
		scan, ok := a.Add(p, start.Add(arrival[n]))
		n++
		if ok {
			fmt.Println("stamp", scan.Stamp.Format("15:04:05.000"), "scan time", scan.ScanTime)
			fmt.Println("bins", len(scan.Ranges), "samples", scan.Samples, "valid", scan.ValidCount())
			// Native 90 degrees clockwise is ROS -90 degrees: bin 300.
			fmt.Println("bin 300:", scan.Ranges[300], "m")
		}
	})
	// Output:
	// stamp 23:54:00.000 scan time 100ms
	// bins 400 samples 26 valid 22
	// bin 300: 1.5 m
}
