/* smem_latency: shared-memory load latency under 1, 2, 4, 8, 16 and 32-way
 * bank conflicts (32 banks of 4-byte words: bank = (address / 4) % 32).
 *
 * One warp. For conflict degree k, lane i chases a ring of CHASE_ROWS words
 * at word offsets i*k + r*32*k (r = 0..CHASE_ROWS-1): every word of lane i
 * lies in bank (i*k) % 32, so in every step the warp's 32 lanes touch 32
 * distinct words of which exactly k share each bank in use (the stride-k
 * access of Mei and Chu; k = 1 is conflict-free). After one warm-up lap,
 * CHASE_STEPS dependent loads are timed with clock() (chase.h).
 *
 * Prints `RESULT smem_conflict_<k> <cycles per load>` (lane 0; every lane
 * of the warp issues together, so all lanes see the same time), and PASS if
 * every lane's chase ended where the ring says it must. */
#include "chase.h"

#define WARP 32
#define CHASE_ROWS 4
#define MAX_WAYS 32
#define CONFLICT_CASES 6 /* k = 1, 2, 4, ..., 32 */

struct smem_args {
  unsigned cycles[CONFLICT_CASES][WARP];
  unsigned ended_home[CONFLICT_CASES][WARP]; /* 1 if the chase ended where it started */
  const unsigned* sink[WARP];
};

/* CHASE_ROWS rows of 32 x MAX_WAYS words: 16 KiB. */
__shared__ unsigned ring_words[CHASE_ROWS * WARP * MAX_WAYS];

TESSERA_KERNEL void smem_conflicts(void* argp) {
  struct smem_args* args = argp;
  unsigned lane = threadIdx.x;
  for (unsigned c = 0; c < CONFLICT_CASES; c++) {
    unsigned k = 1u << c;
    unsigned* home = &ring_words[lane * k];
    for (unsigned r = 0; r < CHASE_ROWS; r++)
      home[r * WARP * k] = (unsigned)(uintptr_t)&home[((r + 1) % CHASE_ROWS) * WARP * k];
    __syncthreads();

    const unsigned* p = chase_plain(home, CHASE_ROWS); /* warm-up lap */
    struct chase_result r = CHASE_TIMED(chase_plain, p, (const unsigned* volatile*)&args->sink[lane]);
    args->cycles[c][lane] = r.cycles;
    /* CHASE_ROWS + CHASE_STEPS links, a whole number of laps. */
    args->ended_home[c][lane] = r.end == home;
    __syncthreads();
  }
}

static struct smem_args results;

int main(void) {
  _Static_assert(CHASE_STEPS % CHASE_ROWS == 0, "the timed chase must end on its start");
  tessera_launch_ref(smem_conflicts, 1, WARP, 0, &results);
  tessera_wait();

  unsigned errors = 0;
  for (unsigned c = 0; c < CONFLICT_CASES; c++) {
    unsigned k = 1u << c, lo = ~0u, hi = 0;
    for (unsigned lane = 0; lane < WARP; lane++) {
      if (!results.ended_home[c][lane]) {
        printf("FAIL smem_latency: %u-way, lane %u's chase ended off its ring\n", k, lane);
        errors++;
      }
      unsigned t = results.cycles[c][lane];
      lo = t < lo ? t : lo;
      hi = t > hi ? t : hi;
    }
    printf("smem %2u-way conflict: %u cycles for %u dependent loads (lanes %u..%u)\n", k, results.cycles[c][0],
           CHASE_STEPS, lo, hi);
    char name[32];
    snprintf(name, sizeof name, "smem_conflict_%u", k);
    chase_print_result(name, results.cycles[c][0]);
  }
  if (errors) {
    printf("FAIL smem_latency: %u errors\n", errors);
    return 1;
  }
  printf("PASS smem_latency\n");
  return 0;
}
