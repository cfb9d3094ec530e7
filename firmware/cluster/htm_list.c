/*
 * Sorted linked-list insertion (htm_bench.h): the cores insert the distinct
 * keys 0..KEYS-1 (core c the keys congruent to c modulo the core count, in
 * a pseudo-random order of its own) into one list kept in ascending order,
 * behind a head sentinel. Each key has its node (node[key]), so no
 * allocator is involved. Check: the list is strictly ascending and holds
 * KEYS nodes, so every key is there exactly once.
 *
 * fine: hand-over-hand locking (a lock per node, taken head to tail, at
 * most two held), so insertions at different places proceed together.
 * Nodes are 16 bytes, four to a line: the list's layout is part of the
 * workload (a traversal's read set spans many lines).
 */
#include "htm_bench.h"

#ifndef KEYS
#define KEYS 128u
#endif
#define NIL 0xFFFFFFFFu

typedef struct {
  volatile unsigned key, next, lock, pad; /* next: a node number, or NIL */
} node;

static node nodes[KEYS] SYNC_ALIGNED;
static node head SYNC_ALIGNED; /* the sentinel: key unused, next the first node */
static htm_lock coarse;

static inline node* at(unsigned n) { return n == NIL ? 0 : &nodes[n]; }

/* Inserts node `n` in order (the coarse and tx critical section). */
static void insert(unsigned n) {
  const unsigned key = nodes[n].key;
  node* prev = &head;
  while (prev->next != NIL && at(prev->next)->key < key) prev = at(prev->next);
  nodes[n].next = prev->next;
  prev->next = n;
}

/* Hand-over-hand: hold prev's lock and, when there is one, cur's. */
static void insert_fine(unsigned n) {
  const unsigned key = nodes[n].key;
  node* prev = &head;
  htm_word_lock(&prev->lock);
  unsigned cur = prev->next;
  if (cur != NIL) htm_word_lock(&nodes[cur].lock);
  while (cur != NIL && nodes[cur].key < key) {
    htm_word_unlock(&prev->lock);
    prev = &nodes[cur];
    cur = prev->next;
    if (cur != NIL) htm_word_lock(&nodes[cur].lock);
  }
  nodes[n].next = cur;
  prev->next = n;
  if (cur != NIL) htm_word_unlock(&nodes[cur].lock);
  htm_word_unlock(&prev->lock);
}

static void work(unsigned me) {
  const enum htm_variant v = htm_current.variant;
  const unsigned cores = htm_current.cores;
  const unsigned count = (KEYS - me + cores - 1u) / cores; /* keys me, me+cores, ... */
  /* This core's keys in a pseudo-random order: i -> (i * step + offset) mod
   * count with step odd and coprime to count (count is a power of two). */
  unsigned rng = htm_seed(me, 0x1157u);
  const unsigned step = (htm_rand(&rng) | 1u) % count | 1u, offset = htm_rand(&rng) % count;
  for (unsigned i = 0; i < count; ++i) {
    const unsigned n = me + cores * ((i * step + offset) % count);
    if (v == HTM_FINE)
      insert_fine(n);
    else
      HTM_CRITICAL(v, &coarse, insert(n));
  }
}

int main(void) {
  int ok = 1;
  HTM_FOR_CORES(cores) {
    HTM_FOR_VARIANTS(v) {
      for (unsigned k = 0; k < KEYS; ++k) {
        nodes[k].key = k;
        nodes[k].next = NIL;
        nodes[k].lock = 0u;
      }
      head.next = NIL;
      head.lock = 0u;
      coarse.word = 0u;
      htm_measure("list", v, cores, KEYS, work);
      unsigned length = 0, out_of_order = 0, last = 0;
      for (unsigned p = head.next; p != NIL && length <= KEYS; p = nodes[p].next, ++length) {
        if (p >= KEYS) {
          ++out_of_order;
          break;
        }
        if (length > 0u && nodes[p].key <= last) ++out_of_order;
        last = nodes[p].key;
      }
      if (length != KEYS || out_of_order != 0u) {
        printf("FAIL htm list variant %s cores %u: %u nodes (expected %u), %u out of order\n", htm_variant_names[v],
               cores, length, KEYS, out_of_order);
        ok = 0;
      }
    }
  }
  if (ok) printf("PASS htm list (%u keys, sorted, each once)\n", KEYS);
  return ok ? 0 : 1;
}
