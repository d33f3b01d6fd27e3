// Package soak drives a robot for a long while with stops of every kind and checks the driver's in-service
// stop monitor (issue 35): every stop it made is in the driver's stop log (across SIGKILLs of the service's
// supervisor), and nothing was flagged; or, with a fault that wears the brakes, that the monitor flagged the
// stops once they were really too long. Run is the loop; `stopproof soak` its command.
//
// Spec: issue 35's "Done when": a 30-minute soak of mixed driving with several hundred stops of every kind
// gives no false flag and loses no record across a SIGKILL of the supervisor; the wearing-brakes fault is
// flagged within a stated number of stops after the truth crosses the limit.
//
// Errata: the soak's reset and enable after each latched stop are its own deliberate acts, as an operator's
// would be; a stop is matched to a record of its kind whose trigger lies within 0.5 s of the soak's (the
// driver's instant of decision follows the soak's request by a few milliseconds, more under load).
package soak
