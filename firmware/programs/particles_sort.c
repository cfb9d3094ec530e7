/* particles_sort: particle binning, the data-parallel solution
 * (particles.h): no locks, only passes over the data.
 *   1. cell_of:     one thread per particle computes its cell and counts
 *                   it in a __shared__ histogram, merged into the global
 *                   cell counts with atomicAdd;
 *   2. scan_counts: one block turns the counts into cell offsets with a
 *                   parallel prefix sum (Hillis-Steele) in shared memory;
 *   3. scatter:     counting sort: each particle takes the next slot of its
 *                   cell (offset + atomicAdd on the cell's fill level) and
 *                   writes its id and cell there;
 *   4. find_starts: one thread per sorted slot finds where each cell's run
 *                   of the sorted cell array starts and ends (the course's
 *                   cell_starts/cell_ends code).
 * The host checks that the sorted cell array is ordered, that the runs
 * found in step 4 match the offsets of step 2, and each cell's count and set
 * of particle ids against its own binning. */
#include "particles.h"

#define BLOCK 256

struct sort_args {
  const struct particle* particles;
  unsigned n;
  unsigned* cell_of;     /* [n] cell of each particle */
  unsigned* cell_count;  /* [CELLS] */
  unsigned* cell_offset; /* [CELLS] exclusive prefix sum of cell_count */
  unsigned* cell_fill;   /* [CELLS] slots taken so far by the scatter */
  unsigned* sorted_id;   /* [n] particle ids ordered by cell */
  unsigned* sorted_cell; /* [n] their cells, non-decreasing */
  unsigned* cell_start;  /* [CELLS] first slot of each cell, NO_PARTICLE if empty */
  unsigned* cell_end;    /* [CELLS] one past its last slot */
};

static unsigned cell_of[PARTICLES], cell_count[CELLS], cell_offset[CELLS], cell_fill[CELLS];
static unsigned sorted_id[PARTICLES], sorted_cell[PARTICLES], cell_start[CELLS], cell_end[CELLS];

/* Shared by cell_of (a histogram) and scan_counts (two scan buffers):
 * every launch reserves all of a program's __shared__ variables. */
__shared__ unsigned shared_cells[2][CELLS];

TESSERA_KERNEL void compute_cells(void* argp) {
  const struct sort_args* args = argp;
  unsigned* histogram = shared_cells[0];
  unsigned t = threadIdx.x;
  for (unsigned c = t; c < CELLS; c += blockDim.x) histogram[c] = 0;
  __syncthreads();

  unsigned p = blockIdx.x * blockDim.x + t;
  if (p < args->n) {
    unsigned c = particle_cell(args->particles[p]);
    args->cell_of[p] = c;
    atomicAdd(&histogram[c], 1u);
  }
  __syncthreads();

  for (unsigned c = t; c < CELLS; c += blockDim.x)
    if (histogram[c] != 0) atomicAdd(&args->cell_count[c], histogram[c]);
}

/* One block of CELLS threads. Hillis-Steele inclusive scan, double
 * buffered: log2(CELLS) steps, each adding the element `step` places back. */
TESSERA_KERNEL void scan_counts(void* argp) {
  const struct sort_args* args = argp;
  unsigned c = threadIdx.x;
  unsigned in = 0;
  shared_cells[in][c] = args->cell_count[c];
  __syncthreads();
  for (unsigned step = 1; step < CELLS; step *= 2) {
    unsigned sum = shared_cells[in][c];
    if (c >= step) sum += shared_cells[in][c - step];
    shared_cells[in ^ 1u][c] = sum;
    in ^= 1u;
    __syncthreads();
  }
  /* Exclusive offset = inclusive sum minus the cell's own count. */
  args->cell_offset[c] = shared_cells[in][c] - args->cell_count[c];
}

TESSERA_KERNEL void scatter(void* argp) {
  const struct sort_args* args = argp;
  unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= args->n) return;
  unsigned c = args->cell_of[p];
  unsigned slot = args->cell_offset[c] + atomicAdd(&args->cell_fill[c], 1u);
  args->sorted_id[slot] = p;
  args->sorted_cell[slot] = c;
}

TESSERA_KERNEL void find_starts(void* argp) {
  const struct sort_args* args = argp;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= args->n) return;
  unsigned c = args->sorted_cell[i];
  if (i == 0) {
    args->cell_start[c] = i;
  } else if (c != args->sorted_cell[i - 1]) {
    args->cell_start[c] = i;
    args->cell_end[args->sorted_cell[i - 1]] = i;
  }
  if (i == args->n - 1) args->cell_end[c] = i + 1;
}

int main(void) {
  const char* prog = "particles_sort";
  particles_setup();
  for (unsigned c = 0; c < CELLS; c++) {
    cell_count[c] = 0;
    cell_fill[c] = 0;
    cell_offset[c] = NO_PARTICLE;
    cell_start[c] = NO_PARTICLE;
    cell_end[c] = NO_PARTICLE;
  }
  for (unsigned p = 0; p < PARTICLES; p++) {
    sorted_id[p] = NO_PARTICLE;
    sorted_cell[p] = NO_PARTICLE;
  }

  struct sort_args args = {particles, PARTICLES, cell_of,     cell_count, cell_offset,
                           cell_fill, sorted_id, sorted_cell, cell_start, cell_end};
  unsigned blocks = (PARTICLES + BLOCK - 1) / BLOCK;
  tessera_roi_begin();
  /* Kernels run one at a time in launch order. */
  tessera_launch(compute_cells, blocks, BLOCK, 0, &args);
  tessera_launch(scan_counts, 1, CELLS, 0, &args);
  tessera_launch(scatter, blocks, BLOCK, 0, &args);
  tessera_launch(find_starts, blocks, BLOCK, 0, &args);
  tessera_wait();
  tessera_roi_end();

  unsigned errors = 0;
  for (unsigned i = 1; i < PARTICLES; i++) {
    if (sorted_cell[i] < sorted_cell[i - 1] || sorted_cell[i] >= CELLS) {
      if (errors < 8) printf("FAIL %s: sorted_cell[%u] = %u after %u\n", prog, i, sorted_cell[i], sorted_cell[i - 1]);
      errors++;
    }
  }
  for (unsigned c = 0; c < CELLS; c++) {
    unsigned n = 0;
    if (cell_start[c] != NO_PARTICLE) {
      if (cell_start[c] != cell_offset[c] || cell_end[c] < cell_start[c] || cell_end[c] > PARTICLES) {
        if (errors < 8)
          printf("FAIL %s: cell %u runs [%u, %u), scan offset %u\n", prog, c, cell_start[c], cell_end[c],
                 cell_offset[c]);
        errors++;
        continue;
      }
      n = cell_end[c] - cell_start[c];
      for (unsigned i = cell_start[c]; i < cell_end[c]; i++)
        errors += particles_check_id(prog, c, sorted_id[i], errors);
    } else if (cell_end[c] != NO_PARTICLE) {
      if (errors < 8) printf("FAIL %s: cell %u has an end (%u) but no start\n", prog, c, cell_end[c]);
      errors++;
    }
    errors += particles_check_count(prog, c, n, errors);
    if (cell_count[c] != n) {
      if (errors < 8) printf("FAIL %s: cell %u counted %u, but its run holds %u\n", prog, c, cell_count[c], n);
      errors++;
    }
  }
  return particles_report(prog, errors);
}
