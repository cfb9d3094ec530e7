/*
 * A chained hash map (htm_bench.h): BUCKETS buckets, nodes from a fixed pool
 * per core (a core allocates from and frees to its own free list, outside
 * the critical section). The cores share OPS operations, a mix of 20%
 * insert, 60% lookup, 20% delete. A key is, one time in four, from the
 * SHARED keys every core uses (contention), else from the core's own
 * PRIVATE keys, which no other core touches.
 *
 * Checks:
 *  - a core's own keys behave as a sequential replay of its operations says
 *    (each core keeps that replay in a private table): every insert, lookup
 *    and delete of an own key finds the key exactly when the replay has it,
 *    and at the end the map holds exactly the own keys the replay holds;
 *  - the structure is consistent: every node is in the bucket of its key
 *    with its key's value, no key twice, the map holds as many nodes as
 *    inserts minus deletes succeeded, and map + free lists hold every node
 *    of the pools (none lost or linked twice).
 *
 * fine: a lock per bucket (in the bucket's line).
 */
#include "htm_bench.h"

#ifndef OPS
#define OPS 256u
#endif
#define BUCKETS 16u
#define SHARED 16u  /* keys 0 .. SHARED-1 */
#define PRIVATE 32u /* core c: SHARED + c*PRIVATE .. */
#define KEYS (SHARED + SYNC_MAX_CORES * PRIVATE)
#define POOL OPS /* every operation of one core could be an insert */
#define NIL 0xFFFFFFFFu

static inline unsigned value_of(unsigned key) { return key * 3u + 1u; }
static inline unsigned bucket_of(unsigned key) { return (key * 2654435761u) >> 28; /* 16 buckets */ }

typedef struct {
  volatile unsigned key, value, next; /* next: a node number, or NIL */
} node;

typedef struct {
  volatile unsigned head; /* a node number, or NIL */
  volatile unsigned lock;
} SYNC_ALIGNED bucket;

/* Each core's pool, free list, replay table and tallies (its own lines). */
typedef struct {
  node nodes[POOL];
  unsigned free_head; /* a node number, or NIL */
  unsigned char own_present[PRIVATE];
  unsigned inserted, deleted, mismatches;
} SYNC_ALIGNED core_data;

static bucket buckets[BUCKETS];
static core_data cores_data[SYNC_MAX_CORES];
static htm_lock coarse;

/* Node number n: pool n / POOL, entry n % POOL. */
static inline node* node_at(unsigned n) { return &cores_data[n / POOL].nodes[n % POOL]; }

/* The critical sections; each sets *found. */
static void map_insert(unsigned key, unsigned n, unsigned* found) {
  bucket* b = &buckets[bucket_of(key)];
  for (unsigned p = b->head; p != NIL; p = node_at(p)->next)
    if (node_at(p)->key == key) {
      *found = 1u;
      return;
    }
  node* x = node_at(n);
  x->key = key;
  x->value = value_of(key);
  x->next = b->head;
  b->head = n;
  *found = 0u;
}

static void map_lookup(unsigned key, unsigned* found) {
  const bucket* b = &buckets[bucket_of(key)];
  *found = 0u;
  for (unsigned p = b->head; p != NIL; p = node_at(p)->next)
    if (node_at(p)->key == key) {
      *found = node_at(p)->value == value_of(key) ? 1u : 2u; /* 2: a wrong value */
      return;
    }
}

/* *found: the unlinked node number, or NIL. */
static void map_delete(unsigned key, unsigned* found) {
  bucket* b = &buckets[bucket_of(key)];
  volatile unsigned* link = &b->head;
  *found = NIL;
  for (unsigned p = *link; p != NIL; link = &node_at(p)->next, p = *link)
    if (node_at(p)->key == key) {
      *link = node_at(p)->next;
      *found = p;
      return;
    }
}

static void work(unsigned me) {
  const enum htm_variant v = htm_current.variant;
  const unsigned cores = htm_current.cores;
  core_data* mine = &cores_data[me];
  unsigned rng = htm_seed(me, 0x4A54u);
  for (unsigned i = me; i < OPS; i += cores) {
    const unsigned op = htm_rand(&rng) % 10u;
    const unsigned own = htm_rand(&rng) % 4u != 0u;
    const unsigned slot = htm_rand(&rng) % (own ? PRIVATE : SHARED);
    const unsigned key = own ? SHARED + me * PRIVATE + slot : slot;
    bucket* b = &buckets[bucket_of(key)];
    unsigned found = 0;
    if (v == HTM_FINE) htm_word_lock(&b->lock);
    if (op < 2u) {
      const unsigned n = mine->free_head; /* the pool holds OPS nodes: never empty */
      mine->free_head = node_at(n)->next;
      HTM_CRITICAL(v, &coarse, map_insert(key, n, &found));
      if (found) {
        node_at(n)->next = mine->free_head; /* already there: the node goes back */
        mine->free_head = n;
      } else {
        ++mine->inserted;
      }
      if (own && found != mine->own_present[slot]) ++mine->mismatches;
      if (own) mine->own_present[slot] = 1u;
    } else if (op < 8u) {
      HTM_CRITICAL(v, &coarse, map_lookup(key, &found));
      if (found == 2u || (own && found != mine->own_present[slot])) ++mine->mismatches;
    } else {
      HTM_CRITICAL(v, &coarse, map_delete(key, &found));
      if (found != NIL) {
        node_at(found)->next = mine->free_head;
        mine->free_head = found;
        ++mine->deleted;
      }
      if (own && (found != NIL) != mine->own_present[slot]) ++mine->mismatches;
      if (own) mine->own_present[slot] = 0u;
    }
    if (v == HTM_FINE) htm_word_unlock(&b->lock);
  }
}

static void reset(void) {
  for (unsigned b = 0; b < BUCKETS; ++b) {
    buckets[b].head = NIL;
    buckets[b].lock = 0u;
  }
  for (unsigned c = 0; c < SYNC_MAX_CORES; ++c) {
    core_data* d = &cores_data[c];
    for (unsigned i = 0; i < POOL; ++i) d->nodes[i].next = i + 1u < POOL ? c * POOL + i + 1u : NIL;
    d->free_head = c * POOL;
    for (unsigned s = 0; s < PRIVATE; ++s) d->own_present[s] = 0u;
    d->inserted = d->deleted = d->mismatches = 0u;
  }
  coarse.word = 0u;
}

static unsigned char seen_key[KEYS];
static unsigned char seen_node[SYNC_MAX_CORES * POOL];

/* Prints what is wrong after a run on `cores` cores; returns 1 when nothing is. */
static int check(enum htm_variant v, unsigned cores) {
  int ok = 1;
  const char* name = htm_variant_names[v];
  for (unsigned k = 0; k < KEYS; ++k) seen_key[k] = 0u;
  for (unsigned n = 0; n < SYNC_MAX_CORES * POOL; ++n) seen_node[n] = 0u;
  unsigned in_map = 0, bad = 0, twice = 0;
  for (unsigned b = 0; b < BUCKETS; ++b)
    for (unsigned p = buckets[b].head; p != NIL && bad == 0u; p = node_at(p)->next) {
      const node* x = node_at(p);
      if (p >= SYNC_MAX_CORES * POOL || seen_node[p] || x->key >= KEYS || bucket_of(x->key) != b ||
          x->value != value_of(x->key)) {
        ++bad; /* also ends a cycle */
        break;
      }
      seen_node[p] = 1u;
      if (seen_key[x->key]) ++twice;
      seen_key[x->key] = 1u;
      ++in_map;
    }
  unsigned in_free = 0, inserted = 0, deleted = 0;
  for (unsigned c = 0; c < SYNC_MAX_CORES; ++c) {
    const core_data* d = &cores_data[c];
    for (unsigned p = d->free_head; p != NIL; p = node_at(p)->next) {
      if (p >= SYNC_MAX_CORES * POOL || seen_node[p]) {
        ++bad;
        break;
      }
      seen_node[p] = 1u;
      ++in_free;
    }
    inserted += d->inserted;
    deleted += d->deleted;
    if (d->mismatches != 0u) {
      printf("FAIL htm hashmap variant %s cores %u: core %u saw %u results its own replay does not give\n", name, cores,
             c, d->mismatches);
      ok = 0;
    }
    for (unsigned s = 0; s < PRIVATE; ++s)
      if (seen_key[SHARED + c * PRIVATE + s] != d->own_present[s]) {
        printf("FAIL htm hashmap variant %s cores %u: key %u is %s the map, its core's replay says otherwise\n", name,
               cores, SHARED + c * PRIVATE + s, d->own_present[s] ? "missing from" : "in");
        ok = 0;
      }
  }
  if (bad || twice || in_map != inserted - deleted || in_map + in_free != SYNC_MAX_CORES * POOL) {
    printf(
        "FAIL htm hashmap variant %s cores %u: %u bad nodes, %u keys twice, %u in the map (expected %u), %u free "
        "(expected %u)\n",
        name, cores, bad, twice, in_map, inserted - deleted, in_free, SYNC_MAX_CORES * POOL - in_map);
    ok = 0;
  }
  return ok;
}

int main(void) {
  int ok = 1;
  HTM_FOR_CORES(cores) {
    HTM_FOR_VARIANTS(v) {
      reset();
      htm_measure("hashmap", v, cores, OPS, work);
      ok &= check(v, cores);
    }
  }
  if (ok) printf("PASS htm hashmap (%u operations, %u buckets)\n", OPS, BUCKETS);
  return ok ? 0 : 1;
}
