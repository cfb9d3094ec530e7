/* particles.h - the particle-binning case study shared by the particles_*
 * programs, a classic study of work distribution on parallel machines:
 * building a cell grid of particles for an N-body step.
 *
 * PARTICLES particles (2048 unless the program says otherwise) with
 * positions in the unit square are binned into a GRID_SIDE x GRID_SIDE grid
 * of cells; the result is, for every cell, the count and the set of
 * particle ids in it. Positions are skewed towards the
 * origin (x = u * u) so that cells see very different contention, and
 * column EMPTY_COLUMN is left empty so that empty cells are exercised.
 *
 * The host computes the expected cell of every particle here; each program
 * produces its own data structure on the SMs and checks it with
 * particles_check_id() / particles_check_count() / particles_report(), which
 * do not depend on the order of the ids within a cell.
 */
#ifndef PARTICLES_H
#define PARTICLES_H

#include <tessera.h>

/* A program may define PARTICLES before including this header. */
#ifndef PARTICLES
#define PARTICLES 2048
#endif
#define GRID_SIDE 8
#define CELLS (GRID_SIDE * GRID_SIDE)
#define EMPTY_COLUMN 3
/* End of a list; a cell without a start. */
#define NO_PARTICLE 0xffffffffu

struct particle {
  float x, y;
};

/* The cell containing p, on SM threads and on the host alike. */
TESSERA_INLINE unsigned particle_cell(struct particle p) {
  unsigned cx = (unsigned)(p.x * (float)GRID_SIDE);
  unsigned cy = (unsigned)(p.y * (float)GRID_SIDE);
  if (cx >= GRID_SIDE) cx = GRID_SIDE - 1;
  if (cy >= GRID_SIDE) cy = GRID_SIDE - 1;
  return cy * GRID_SIDE + cx;
}

static struct particle particles[PARTICLES];
static unsigned want_cell[PARTICLES];
static unsigned want_count[CELLS];
static unsigned char particle_seen[PARTICLES];

/* Numerical Recipes' 32-bit LCG; the top 24 bits become a float in [0, 1). */
static inline float particles_random(unsigned* state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)(*state >> 8) * (1.0f / 16777216.0f);
}

/* Fills particles[] (fixed seed) and the expected binning. */
static inline void particles_setup(void) {
  unsigned state = 12345u;
  for (unsigned c = 0; c < CELLS; c++) want_count[c] = 0;
  for (unsigned p = 0; p < PARTICLES; p++) {
    float u = particles_random(&state);
    float x = u * u;
    float y = particles_random(&state);
    /* Move column EMPTY_COLUMN's particles one column right. */
    if ((unsigned)(x * (float)GRID_SIDE) == EMPTY_COLUMN) x += 1.0f / (float)GRID_SIDE;
    particles[p].x = x;
    particles[p].y = y;
    want_cell[p] = particle_cell(particles[p]);
    want_count[want_cell[p]]++;
    particle_seen[p] = 0;
  }
}

/* Checks that the program put particle id in cell c, once. Returns 1 on an
 * error (printing the first few), 0 otherwise. */
static inline unsigned particles_check_id(const char* prog, unsigned c, unsigned id, unsigned errors) {
  const char* why = NULL;
  if (id >= PARTICLES)
    why = "no such particle";
  else if (particle_seen[id])
    why = "listed twice";
  else if (want_cell[id] != c)
    why = "wrong cell";
  if (!why) {
    particle_seen[id] = 1;
    return 0;
  }
  if (errors < 8) printf("FAIL %s: cell %u holds particle %u: %s\n", prog, c, id, why);
  return 1;
}

/* Checks the number of particles the program found in cell c. */
static inline unsigned particles_check_count(const char* prog, unsigned c, unsigned n, unsigned errors) {
  if (n == want_count[c]) return 0;
  if (errors < 8) printf("FAIL %s: cell %u has %u particles, want %u\n", prog, c, n, want_count[c]);
  return 1;
}

/* Checks cell lists kept as linked lists: head[c] is the first particle of
 * cell c (NO_PARTICLE when empty), next[p] the one after p, count[c] the
 * count the program kept. A walk stops after PARTICLES steps, so a cycle is
 * an error, not a hang. */
static inline unsigned particles_check_lists(const char* prog, const unsigned* head, const unsigned* next,
                                             const unsigned* count) {
  unsigned errors = 0;
  for (unsigned c = 0; c < CELLS; c++) {
    unsigned n = 0;
    for (unsigned p = head[c]; p != NO_PARTICLE && n <= PARTICLES; p = next[p]) {
      n++;
      if (particles_check_id(prog, c, p, errors)) {
        errors++;
        break; /* next[p] may be out of range */
      }
    }
    errors += particles_check_count(prog, c, n, errors);
    if (count[c] != n) {
      if (errors < 8) printf("FAIL %s: cell %u count %u, but its list holds %u\n", prog, c, count[c], n);
      errors++;
    }
  }
  return errors;
}

/* Final verdict: every particle must have been found; prints PASS or FAIL
 * and returns main()'s status. */
static inline int particles_report(const char* prog, unsigned errors) {
  for (unsigned p = 0; p < PARTICLES; p++) {
    if (!particle_seen[p]) {
      if (errors < 8) printf("FAIL %s: particle %u (cell %u) is in no cell\n", prog, p, want_cell[p]);
      errors++;
    }
  }
  if (errors) {
    printf("FAIL %s: %u errors\n", prog, errors);
    return 1;
  }
  unsigned busiest = 0;
  for (unsigned c = 1; c < CELLS; c++)
    if (want_count[c] > want_count[busiest]) busiest = c;
  printf("PASS %s (%u particles, %u cells, busiest cell %u holds %u)\n", prog, PARTICLES, CELLS, busiest,
         want_count[busiest]);
  return 0;
}

/* Appends particle p to the linked list of cell c while holding *lock
 * (0 free, 1 held): next[p] = head[c]; head[c] = p; count[c]++.
 *
 * SIMT without independent thread scheduling: the lanes of one warp share a
 * PC, and minimum-PC reconvergence runs the lanes at the lowest PC first. In
 * `while (atomicCAS(lock, 0, 1) != 0) ;` followed by the critical section,
 * the lanes that lost the CAS branch back to it and keep the lowest PC for
 * ever, while the winner, a lane of the same warp, waits above them to run
 * the critical section: a livelock. The losers must instead branch forward,
 * past the critical section, to a jump back: then the warp runs the winner's
 * critical section and release first. No C form guarantees that layout (GCC
 * moves the critical section out of line or folds a `done` flag back into
 * the spin loop), so the loop is written in assembly. The fences keep the
 * list writes inside the lock on a weakly ordered memory system. */
TESSERA_INLINE void locked_list_push(volatile unsigned* lock, volatile unsigned* head, volatile unsigned* next,
                                     volatile unsigned* count, unsigned c, unsigned p) {
  unsigned old, tmp;
  __asm__ volatile(
      "1:	.insn r4 0x2B, 7, 0, %[old], %[lock], x0, %[one]\n" /* old = atomicCAS(lock, 0, 1) */
      "	bnez	%[old], 2f\n"
      "	fence	rw, rw\n"
      "	lw	%[tmp], 0(%[head])\n" /* next[p] = head[c] */
      "	sw	%[tmp], 0(%[next])\n"
      "	sw	%[p], 0(%[head])\n"    /* head[c] = p */
      "	lw	%[tmp], 0(%[count])\n" /* count[c]++ */
      "	addi	%[tmp], %[tmp], 1\n"
      "	sw	%[tmp], 0(%[count])\n"
      "	fence	rw, rw\n"
      "	amoswap.w x0, x0, (%[lock])\n" /* atomicExch(lock, 0) */
      "	j	3f\n"
      "2:	j	1b\n"
      "3:\n"
      : [old] "=&r"(old), [tmp] "=&r"(tmp)
      : [lock] "r"(lock), [head] "r"(&head[c]), [next] "r"(&next[p]), [count] "r"(&count[c]), [p] "r"(p), [one] "r"(1u)
      : "memory");
}

#endif /* PARTICLES_H */
