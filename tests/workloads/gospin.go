// SPDX-License-Identifier: GPL-2.0-only
// A Go program that profiles itself with runtime/pprof (the CPU profile
// of Go's runtime, as Go services export it): gospin OUT.pb.gz spins in
// spin, called from main, for 600 ms.  For tests/integration/pprof.sh.
package main

import (
	"os"
	"runtime/pprof"
	"time"
)

//go:noinline
func spin(n int) int {
	h := 1
	for i := 0; i < n; i++ {
		h = h*31 + i
	}
	return h
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil || pprof.StartCPUProfile(f) != nil {
		os.Exit(1)
	}
	end := time.Now().Add(600 * time.Millisecond)
	s := 0
	for time.Now().Before(end) {
		s += spin(1000000)
	}
	pprof.StopCPUProfile()
	f.Close()
	if s == 42 {
		println(s)
	}
}
