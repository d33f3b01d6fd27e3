package supervisor

import "github.com/rosorin/rosorin/driver/childproc"

// SetProcName is childproc.SetProcName, kept for driver/lidar until it imports childproc itself.
func SetProcName(name string) { childproc.SetProcName(name) }
