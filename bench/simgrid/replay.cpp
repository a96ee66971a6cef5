/* replay.cpp: SimGrid 3.32's SMPI offline replay of a `phasor export --format simgrid`
 * directory: the few lines of SimGrid's examples/smpi/replay/replay.cpp without its toy
 * overrides. smpirun -replay traces.txt gives each rank its trace file as argv[1]. Built by
 * bench/simgrid/run.sh with smpicxx, only where SimGrid is installed. */
#include "simgrid/s4u/Actor.hpp"
#include "smpi/smpi.h"
#include "xbt/replay.hpp"
#include "xbt/str.h"

int main(int argc, char* argv[])
{
  auto* self               = simgrid::s4u::Actor::self();
  const char* instance_id  = self->get_property("instance_id");
  const int rank           = static_cast<int>(xbt_str_parse_int(self->get_property("rank"), "rank"));
  smpi_replay_init(instance_id, rank, 0);
  smpi_replay_main(rank, argc > 1 ? argv[1] : nullptr); /* prints "Simulation time X" */
  return 0;
}
