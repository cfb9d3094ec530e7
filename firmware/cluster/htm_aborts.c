/*
 * Every abort reason of the control cores' transactions (docs/htm.md), each
 * checked to leave no trace: the status tx.begin returns, a register changed
 * inside the transaction back to its value at tx.begin, and memory written
 * inside it unchanged when read again (through the cache). Prints
 *   ABORT <name> status 0x<status> register 0x<value> memory <value>
 * and PASS or FAIL lines; exits non-zero on a wrong result. The undo-log
 * case depends on the versioning: eager aborts (reason 8), lazy commits.
 */
#include "cluster.h"

#define SET_STRIDE (8u * 1024u) /* cluster.l1d default: 32 KiB, 4 ways -> 8 KiB per way */
#define WAYS 4u

static volatile unsigned data[16] __attribute__((aligned(64)));
static volatile unsigned same_set[(WAYS + 1) * SET_STRIDE / 4] __attribute__((aligned(8192)));
static volatile unsigned shared_word __attribute__((aligned(64)));
static volatile unsigned reader_status, reader_ready;
static int failures;

static void expect(const char* what, unsigned got, unsigned want) {
  if (got != want) {
    printf("FAIL %s: 0x%x, expected 0x%x\n", what, got, want);
    ++failures;
  }
}

/* Runs `body` in a transaction with s2 = 0x5EED at tx.begin; inside, the
 * body changes s2 and data[0]. Returns the status; checks s2 and data[0]. */
#define ABORT_CASE(name, want_status, body)                                                \
  do {                                                                                     \
    data[0] = 100;                                                                         \
    register unsigned keep __asm__("s2") = 0x5EEDu;                                        \
    __asm__ volatile("" : "+r"(keep));                                                     \
    unsigned status = tessera_tx_begin();                                                  \
    if (status == 0) {                                                                     \
      keep = 0xBAD;                                                                        \
      __asm__ volatile("" : "+r"(keep));                                                   \
      data[0] = 200;                                                                       \
      body;                                                                                \
      tessera_tx_end();                                                                    \
    }                                                                                      \
    __asm__ volatile("" : "+r"(keep));                                                     \
    printf("ABORT %s status 0x%x register 0x%x memory %u\n", name, status, keep, data[0]); \
    expect(name " status", status, want_status);                                           \
    expect(name " register", keep, status ? 0x5EEDu : 0xBADu);                             \
    expect(name " memory", data[0], status ? 100u : 200u);                                 \
  } while (0)

static void nest(unsigned levels) {
  for (unsigned i = 0; i < levels; ++i) (void)tessera_tx_begin();
}

/* Core 1 reads shared_word in a transaction and works until core 0's plain
 * store aborts it (write-read conflict). reader_started is written before
 * the transaction; reader_ready inside it (visible only if it commits). */
static volatile unsigned reader_started;

static void conflict_pair(void* arg) {
  (void)arg;
  if (tessera_hart_id() == 1) {
    reader_started = 1;
    unsigned status = tessera_tx_begin();
    if (status == 0) {
      (void)shared_word;
      reader_ready = 1;
      for (volatile unsigned spin = 0; spin < 20000u; ++spin) {
      }
      tessera_tx_end();
    }
    reader_status = status;
    return;
  }
  while (!reader_started) {
  }
  for (volatile unsigned spin = 0; spin < 200u; ++spin) {
  }
  shared_word = 7; /* a plain store to a word core 1's transaction read */
}

int main(void) {
  ABORT_CASE("none", 0u, (void)0);
  ABORT_CASE("explicit", TESSERA_TX_EXPLICIT | (42u << 8), tessera_tx_abort(42));
  ABORT_CASE("mmio", TESSERA_TX_MMIO, *(volatile unsigned*)0x10000000u = '!');
  ABORT_CASE("nesting", TESSERA_TX_NESTING, nest(8)); /* depth 9 > htm.max_depth 8 */
  ABORT_CASE("capacity", TESSERA_TX_CAPACITY, for (unsigned w = 0; w <= WAYS; ++w) same_set[w * SET_STRIDE / 4] = w);
  for (unsigned w = 0; w <= WAYS; ++w) expect("capacity lines", same_set[w * SET_STRIDE / 4], 0);
  /* One undo-log entry: the second word written overflows it (eager). */
  __asm__ volatile("csrw 0x8C1, %0" : : "r"(8u));
  unsigned log_status = tessera_tx_begin();
  if (log_status == 0) {
    data[1] = 1;
    data[2] = 2;
    tessera_tx_end();
  }
  __asm__ volatile("csrw 0x8C1, %0" : : "r"(0u)); /* the runtime sets its own log again */
  printf("ABORT log status 0x%x memory %u %u\n", log_status, data[1], data[2]);
  if (log_status == TESSERA_TX_LOG_OVERFLOW)
    expect("log memory", data[1] + data[2], 0);
  else
    expect("log committed", log_status * 16 + data[1] * 4 + data[2], 1 * 4 + 2);
  if (tessera_num_cores() >= 2) {
    run_on_cores(2, conflict_pair, 0);
    printf("ABORT conflict status 0x%x memory %u\n", reader_status, reader_ready);
    expect("conflict status", reader_status, TESSERA_TX_CONFLICT_WR | TESSERA_TX_RETRY);
    expect("conflict memory", reader_ready, 0);
  }
  if (failures) return 1;
  printf("PASS htm aborts\n");
  return 0;
}
