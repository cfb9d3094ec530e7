/* particles_global_lock: particle binning, solution "parallelize over
 * particles" with one lock for the whole grid (particles.h). One thread per
 * particle computes its cell, takes the single global lock with atomicCAS,
 * pushes itself on the cell's linked list, bumps the cell's count and
 * releases the lock with atomicExch. Every append is serialized, which is
 * the point of the case study: massive contention. The host checks each
 * cell's count and set of particle ids against its own binning. */
/* Each append waits for every earlier one, and every waiting warp keeps a
 * 32-lane atomicCAS going at the lock's L2 slice, so the run grows faster
 * than linearly with the particle count: 512 show the effect in a short
 * run. */
#define PARTICLES 512
#include "particles.h"

#define BLOCK 128

struct binning_args {
  const struct particle* particles;
  unsigned n;
  unsigned* lock;
  unsigned* head;
  unsigned* next;
  unsigned* count;
};

static unsigned grid_lock;
static unsigned head[CELLS], next[PARTICLES], count[CELLS];

TESSERA_KERNEL void bin_with_global_lock(void* argp) {
  const struct binning_args* args = argp;
  unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= args->n) return;
  unsigned c = particle_cell(args->particles[p]);
  locked_list_push(args->lock, args->head, args->next, args->count, c, p);
}

int main(void) {
  particles_setup();
  grid_lock = 0;
  for (unsigned c = 0; c < CELLS; c++) {
    head[c] = NO_PARTICLE;
    count[c] = 0;
  }
  for (unsigned p = 0; p < PARTICLES; p++) next[p] = NO_PARTICLE;

  struct binning_args args = {particles, PARTICLES, &grid_lock, head, next, count};
  tessera_roi_begin();
  tessera_launch(bin_with_global_lock, (PARTICLES + BLOCK - 1) / BLOCK, BLOCK, 0, &args);
  tessera_wait();
  tessera_roi_end();

  unsigned errors = particles_check_lists("particles_global_lock", head, next, count);
  if (grid_lock != 0) {
    printf("FAIL particles_global_lock: lock still held (%u)\n", grid_lock);
    errors++;
  }
  return particles_report("particles_global_lock", errors);
}
