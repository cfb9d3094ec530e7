/*
 * Bank transfers (htm_bench.h): ACCOUNTS accounts of INITIAL each; the
 * cores share TRANSFERS transfers between pseudo-random pairs of accounts
 * (a per-core generator), each moving an amount of 1..MAX_AMOUNT when the
 * source holds it (no overdraft). Check: the sum of the balances is
 * conserved (ACCOUNTS * INITIAL) and no balance went below zero (an
 * unsigned balance above the total would be one that wrapped).
 *
 * fine: a lock per account (in the account's line), the lower-numbered of
 * the two taken first so that two transfers never wait for each other.
 */
#include "htm_bench.h"

#ifndef ACCOUNTS
#define ACCOUNTS 32u
#endif
#ifndef TRANSFERS
#define TRANSFERS 256u
#endif
#define INITIAL 100u
#define MAX_AMOUNT 50u

typedef struct {
  volatile unsigned balance;
  volatile unsigned lock;
} SYNC_ALIGNED account;

static account accounts[ACCOUNTS];
static htm_lock coarse;

static void transfer(unsigned from, unsigned to, unsigned amount) {
  if (accounts[from].balance >= amount) {
    accounts[from].balance = accounts[from].balance - amount;
    accounts[to].balance = accounts[to].balance + amount;
  }
}

static void work(unsigned me) {
  const enum htm_variant v = htm_current.variant;
  const unsigned cores = htm_current.cores;
  unsigned rng = htm_seed(me, 0xBA4Bu);
  for (unsigned i = me; i < TRANSFERS; i += cores) {
    const unsigned from = htm_rand(&rng) % ACCOUNTS;
    const unsigned to = (from + 1u + htm_rand(&rng) % (ACCOUNTS - 1u)) % ACCOUNTS;
    const unsigned amount = 1u + htm_rand(&rng) % MAX_AMOUNT;
    if (v == HTM_FINE) {
      const unsigned lo = from < to ? from : to, hi = from < to ? to : from;
      htm_word_lock(&accounts[lo].lock);
      htm_word_lock(&accounts[hi].lock);
      transfer(from, to, amount);
      htm_word_unlock(&accounts[hi].lock);
      htm_word_unlock(&accounts[lo].lock);
    } else {
      HTM_CRITICAL(v, &coarse, transfer(from, to, amount));
    }
  }
}

int main(void) {
  int ok = 1;
  HTM_FOR_CORES(cores) {
    HTM_FOR_VARIANTS(v) {
      for (unsigned a = 0; a < ACCOUNTS; ++a) {
        accounts[a].balance = INITIAL;
        accounts[a].lock = 0u;
      }
      coarse.word = 0u;
      htm_measure("bank", v, cores, TRANSFERS, work);
      unsigned sum = 0, wrapped = 0;
      for (unsigned a = 0; a < ACCOUNTS; ++a) {
        sum += accounts[a].balance;
        if (accounts[a].balance > ACCOUNTS * INITIAL) ++wrapped;
      }
      if (sum != ACCOUNTS * INITIAL || wrapped != 0u) {
        printf("FAIL htm bank variant %s cores %u: sum %u (expected %u), %u balances below zero\n",
               htm_variant_names[v], cores, sum, ACCOUNTS * INITIAL, wrapped);
        ok = 0;
      }
    }
  }
  if (ok) printf("PASS htm bank (%u accounts, %u transfers)\n", ACCOUNTS, TRANSFERS);
  return ok ? 0 : 1;
}
