// Package cputime reads the CPU time of the calling OS thread (getrusage RUSAGE_THREAD, getrusage(2)): a
// computation's own cost, without what other processes on a shared core take. The driver's contact
// matcher records it per match (match_cpu_ms), scanmatch's benchmark reports it. Off Linux Thread is 0
// (not measured); callers treat 0 as "no figure".
package cputime
