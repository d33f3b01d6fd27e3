package procfs

import (
	"os"
	"runtime"
	"testing"
)

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Stat
		bad      bool
	}{
		{name: "plain", in: "812 (rosorin-base) S 1 812 812 0 -1 4194560 1 0 0 0 37 5 0 0 20 0 3 0 123456 0 0",
			want: Stat{PID: 812, Comm: "rosorin-base", State: 'S', PPID: 1, UTime: 37, STime: 5, Start: 123456}},
		{name: "name with spaces and parens", in: "9 (a) b) (c) Z 7 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 42 0 0",
			want: Stat{PID: 9, Comm: "a) b) (c", State: 'Z', PPID: 7, Start: 42}},
		{name: "empty", in: "", bad: true},
		{name: "no parens", in: "1 init S 0", bad: true},
		{name: "short", in: "1 (init) S 0 1 1", bad: true},
		{name: "bad ppid", in: "1 (x) S p 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 42 0 0", bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseStat([]byte(tc.in))
			if tc.bad {
				if err == nil {
					t.Fatalf("ParseStat(%q) = %+v, want an error", tc.in, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseStat(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestReadStatSelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	s, err := ReadStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.PID != os.Getpid() || s.PPID != os.Getppid() || !s.Alive() || s.Start == 0 {
		t.Fatalf("ReadStat(self) = %+v (pid %d, ppid %d)", s, os.Getpid(), os.Getppid())
	}
	if Comm(os.Getpid()) == "" {
		t.Fatal("Comm(self) is empty")
	}
	if _, err := ReadStat(-1); err == nil {
		t.Fatal("ReadStat(-1) gave no error")
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("812 (rosorin-base) S 1 812 812 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 3 0 123456 0 0"))
	f.Add([]byte("9 (a) b) Z 7"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseStat(b)
		if err == nil && (s.PID <= 0 || s.PPID < 0 || !('A' <= s.State && s.State <= 'Z' || 'a' <= s.State && s.State <= 'z')) {
			t.Fatalf("accepted %q as %+v", b, s)
		}
	})
}
