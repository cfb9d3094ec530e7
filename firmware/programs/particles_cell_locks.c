/* particles_cell_locks: particle binning, solution "finer-grained locks":
 * one lock per cell (particles.h). One thread per particle computes its
 * cell, takes that cell's lock with atomicCAS, pushes itself on the cell's
 * linked list, bumps the count and releases the lock with atomicExch.
 * Appends to different cells proceed in parallel. The host checks each
 * cell's count and set of particle ids against its own binning, and that
 * every lock was released. */
#include "particles.h"

#define BLOCK 128

struct binning_args {
  const struct particle* particles;
  unsigned n;
  unsigned* locks;
  unsigned* head;
  unsigned* next;
  unsigned* count;
};

static unsigned cell_lock[CELLS];
static unsigned head[CELLS], next[PARTICLES], count[CELLS];

TESSERA_KERNEL void bin_with_cell_locks(void* argp) {
  const struct binning_args* args = argp;
  unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= args->n) return;
  unsigned c = particle_cell(args->particles[p]);
  locked_list_push(&args->locks[c], args->head, args->next, args->count, c, p);
}

int main(void) {
  particles_setup();
  for (unsigned c = 0; c < CELLS; c++) {
    cell_lock[c] = 0;
    head[c] = NO_PARTICLE;
    count[c] = 0;
  }
  for (unsigned p = 0; p < PARTICLES; p++) next[p] = NO_PARTICLE;

  struct binning_args args = {particles, PARTICLES, cell_lock, head, next, count};
  tessera_roi_begin();
  tessera_launch(bin_with_cell_locks, (PARTICLES + BLOCK - 1) / BLOCK, BLOCK, 0, &args);
  tessera_wait();
  tessera_roi_end();

  unsigned errors = particles_check_lists("particles_cell_locks", head, next, count);
  for (unsigned c = 0; c < CELLS; c++) {
    if (cell_lock[c] != 0) {
      if (errors < 8) printf("FAIL particles_cell_locks: lock of cell %u still held (%u)\n", c, cell_lock[c]);
      errors++;
    }
  }
  return particles_report("particles_cell_locks", errors);
}
