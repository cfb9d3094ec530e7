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

enum lock_kind { TAS, TTAS, TAS_BACKOFF, TICKET, ARRAY, LOCK_KINDS };
static const char *const kLockNames[] = { "tas", "ttas", "tas_backoff", "ticket", "array" };

static sync_spinlock spin;
static sync_ticket_lock ticket;
static sync_array_lock array;
static volatile unsigned counter SYNC_ALIGNED;
static enum lock_kind kind;
static unsigned cores;

static sync_central_barrier central;
static sync_tree_barrier tree;
static struct { volatile unsigned v; } SYNC_ALIGNED slot[SYNC_MAX_CORES];
static volatile unsigned barrier_errors SYNC_ALIGNED;
static int use_tree;

static void lock_worker(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < ACQUIRES; ++i) {
		unsigned token = 0;
		switch (kind) {
		case TAS: tas_lock(&spin); break;
		case TTAS: ttas_lock(&spin); break;
		case TAS_BACKOFF: tas_backoff_lock(&spin); break;
		case TICKET: token = ticket_lock(&ticket); break;
		default: token = array_lock(&array); break;
		}
		const unsigned c = counter; /* not atomic: the lock must exclude */
		sync_delay(3);
		counter = c + 1u;
		switch (kind) {
		case TICKET: ticket_unlock(&ticket, token); break;
		case ARRAY: array_unlock(&array, token); break;
		default: spin_unlock(&spin); break;
		}
	}
}

static void barrier_worker(void *arg)
{
	(void)arg;
	const unsigned me = tessera_hart_id();
	unsigned sense = 0, episode = 0;
	for (unsigned e = 1; e <= EPISODES; ++e) {
		sync_delay((me * 37u + e * 11u) & 63u); /* arrive in a different order each time */
		slot[me].v = e;
		if (use_tree) tree_barrier(&tree, cores, me, &episode); else central_barrier(&central, cores, &sense);
		for (unsigned j = 0; j < cores; ++j)
			if (slot[j].v != e)
				sync_fetch_add(&barrier_errors, 1u);
		if (use_tree) tree_barrier(&tree, cores, me, &episode); else central_barrier(&central, cores, &sense);
	}
}

int main(void)
{
	cores = tessera_num_cores();
	int ok = 1;
	for (kind = TAS; kind < LOCK_KINDS; ++kind) {
		counter = 0;
		array_lock_init(&array);
		run_on_cores(cores, lock_worker, 0);
		const unsigned expected = cores * ACQUIRES;
		printf("RESULT locks %s cores %u counter %u expected %u\n", kLockNames[kind], cores, counter, expected);
		if (counter != expected) {
			printf("FAIL lock %s: %u updates lost\n", kLockNames[kind], expected - counter);
			ok = 0;
		}
	}
	for (use_tree = 0; use_tree <= 1; ++use_tree) {
		barrier_errors = 0;
		run_on_cores(cores, barrier_worker, 0);
		printf("RESULT barrier %s cores %u episodes %u errors %u\n", use_tree ? "tree" : "central", cores,
		       EPISODES, barrier_errors);
		if (barrier_errors != 0) {
			printf("FAIL barrier %s\n", use_tree ? "tree" : "central");
			ok = 0;
		}
	}
	if (ok)
		printf("PASS locks and barriers on %u cores\n", cores);
	return ok ? 0 : 1;
}
