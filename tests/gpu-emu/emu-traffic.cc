/* emu-traffic.cc — placeholder until the traffic model lands. */
#include "emu-internal.h"

namespace ctr_emu {
void traffic_launch_begin (const char *) {}
void traffic_launch_end () {}
void traffic_warp_end (unsigned) {}
}

extern "C" int ctr_emu_traffic_enabled (void) { return 0; }
extern "C" void ctr_emu_traffic_reset (void) {}
extern "C" unsigned ctr_emu_traffic_get (CtrEmuTraffic *, unsigned) { return 0; }
