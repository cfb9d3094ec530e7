/* particles_partial_grids: particle binning, solution "compute partial
 * results, then merge" (particles.h). Each block bins its BLOCK particles
 * into a private grid in __shared__ memory: per-cell linked lists of the
 * block's particles, pushed lock-free with a shared atomicExch on the list
 * head, and per-cell counts with a shared atomicAdd. After __syncthreads()
 * one thread per cell merges the block's list for that cell into the global
 * grid: it links the particles' global next pointers and splices the whole
 * chain in with one global atomicExch on the cell's head, and adds the count
 * with one global atomicAdd. Global atomics drop from one per particle to
 * one or two per (block, non-empty cell). The host checks each cell's count
 * and set of particle ids against its own binning. */
#include "particles.h"

#define BLOCK 256

struct binning_args {
  const struct particle* particles;
  unsigned n;
  unsigned* head;
  unsigned* next;
  unsigned* count;
};

static unsigned head[CELLS], next[PARTICLES], count[CELLS];

TESSERA_KERNEL void bin_with_partial_grids(void* argp) {
  const struct binning_args* args = argp;
  /* The block's partial grid; list links are indices within the block. */
  __shared__ unsigned block_head[CELLS];
  __shared__ unsigned block_count[CELLS];
  __shared__ unsigned block_next[BLOCK];

  unsigned t = threadIdx.x;
  unsigned first = blockIdx.x * blockDim.x;
  for (unsigned c = t; c < CELLS; c += blockDim.x) {
    block_head[c] = NO_PARTICLE;
    block_count[c] = 0;
  }
  __syncthreads();

  if (first + t < args->n) {
    unsigned c = particle_cell(args->particles[first + t]);
    block_next[t] = atomicExch(&block_head[c], t);
    atomicAdd(&block_count[c], 1u);
  }
  __syncthreads();

  for (unsigned c = t; c < CELLS; c += blockDim.x) {
    unsigned local = block_head[c];
    if (local == NO_PARTICLE) continue;
    while (block_next[local] != NO_PARTICLE) {
      args->next[first + local] = first + block_next[local];
      local = block_next[local];
    }
    /* local is the chain's last particle: it now leads to the
     * chains other blocks spliced in before. */
    args->next[first + local] = atomicExch(&args->head[c], first + block_head[c]);
    atomicAdd(&args->count[c], block_count[c]);
  }
}

int main(void) {
  particles_setup();
  for (unsigned c = 0; c < CELLS; c++) {
    head[c] = NO_PARTICLE;
    count[c] = 0;
  }
  for (unsigned p = 0; p < PARTICLES; p++) next[p] = NO_PARTICLE;

  struct binning_args args = {particles, PARTICLES, head, next, count};
  tessera_roi_begin();
  tessera_launch(bin_with_partial_grids, (PARTICLES + BLOCK - 1) / BLOCK, BLOCK, 0, &args);
  tessera_wait();
  tessera_roi_end();

  unsigned errors = particles_check_lists("particles_partial_grids", head, next, count);
  return particles_report("particles_partial_grids", errors);
}
