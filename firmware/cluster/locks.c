/*
 * Locks and barriers under contention on every control core
 * (tessera_num_cores(): 4 by default, 8 with --set cluster.cores=8).
 *
 * Locks: each core takes the lock ACQUIRES times and increments a shared
 * counter with a plain load and store inside; any lost update (two holders
 * at once) leaves the counter short of cores * ACQUIRES.
 * Barriers: in episode e every core writes e to its own slot, meets the
 * others, checks that every slot holds e (nobody left early), and meets
 * them again before the next episode.
 */
#include "cluster.h"
#include "sync.h"

#define ACQUIRES 100u
#define EPISODES 50u

static sync_any_lock lock;
static volatile unsigned counter SYNC_ALIGNED;
static unsigned cores;

static sync_central_barrier central;
static sync_tree_barrier tree;
static struct { volatile unsigned v; } SYNC_ALIGNED slot[SYNC_MAX_CORES];
static volatile unsigned barrier_errors SYNC_ALIGNED;
static int use_tree;

static void lock_worker(void* arg) {
  (void)arg;
  for (unsigned i = 0; i < ACQUIRES; ++i) {
    const unsigned token = any_lock(&lock);
    const unsigned c = counter; /* not atomic: the lock must exclude */
    sync_delay(3);
    counter = c + 1u;
    any_unlock(&lock, token);
  }
}

static void barrier_worker(void* arg) {
  (void)arg;
  const unsigned me = tessera_hart_id();
  unsigned sense = 0, episode = 0;
  for (unsigned e = 1; e <= EPISODES; ++e) {
    sync_delay((me * 37u + e * 11u) & 63u); /* arrive in a different order each time */
    slot[me].v = e;
    if (use_tree)
      tree_barrier(&tree, cores, me, &episode);
    else
      central_barrier(&central, cores, &sense);
    for (unsigned j = 0; j < cores; ++j)
      if (slot[j].v != e) sync_fetch_add(&barrier_errors, 1u);
    if (use_tree)
      tree_barrier(&tree, cores, me, &episode);
    else
      central_barrier(&central, cores, &sense);
  }
}

int main(void) {
  cores = tessera_num_cores();
  int ok = 1;
  for (unsigned kind = SYNC_TAS; kind < SYNC_LOCK_KINDS; ++kind) {
    counter = 0;
    any_lock_init(&lock, (enum sync_lock_kind)kind);
    run_on_cores(cores, lock_worker, 0);
    const unsigned expected = cores * ACQUIRES;
    printf("RESULT locks %s cores %u counter %u expected %u\n", sync_lock_names[kind], cores, counter, expected);
    if (counter != expected) {
      printf("FAIL lock %s: %u updates lost\n", sync_lock_names[kind], expected - counter);
      ok = 0;
    }
  }
  for (use_tree = 0; use_tree <= 1; ++use_tree) {
    barrier_errors = 0;
    run_on_cores(cores, barrier_worker, 0);
    printf("RESULT barrier %s cores %u episodes %u errors %u\n", use_tree ? "tree" : "central", cores, EPISODES,
           barrier_errors);
    if (barrier_errors != 0) {
      printf("FAIL barrier %s\n", use_tree ? "tree" : "central");
      ok = 0;
    }
  }
  if (ok) printf("PASS locks and barriers on %u cores\n", cores);
  return ok ? 0 : 1;
}
