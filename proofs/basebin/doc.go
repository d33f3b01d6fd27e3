// Package basebin picks the rosorin-base binary a simulated proof runs (Find: built from the source tree
// whenever it is at hand, else --base-bin, next to stopproof, $PATH) and names it with its version and digest
// (Bin), so a proof names the code it proved.
package basebin
