/* A kernel whose threads run a transactional instruction: transactions live
 * in the control cluster's L1 caches, so an SM thread stops the run with a
 * fault that says so (docs/firmware-abi.md, "Transactional memory (control
 * cores)"). TX_FORM (-D) selects the instruction; forms 0..3 mark it with
 * the global label htm_tx_site so the test can name its pc. */
#include <tessera.h>

#ifndef TX_FORM
#error "define TX_FORM: 0 tx.begin, 1 tx.end, 2 tx.abort 7, 3 tx.test, 4 tessera_tx_begin()"
#endif

static unsigned out[32];

TESSERA_KERNEL void tx_kernel(void* argp) {
  (void)argp;
  register unsigned r __asm__("a0") = 0;
#if TX_FORM == 0
  __asm__ volatile(".globl htm_tx_site\nhtm_tx_site: .insn r 0x7B, 0, 0, a0, x0, x0" : "=r"(r) : : "memory");
#elif TX_FORM == 1
  __asm__ volatile(".globl htm_tx_site\nhtm_tx_site: .insn r 0x7B, 1, 0, x0, x0, x0" : : : "memory");
#elif TX_FORM == 2
  __asm__ volatile(".globl htm_tx_site\nhtm_tx_site: .insn i 0x7B, 2, x0, x0, 7" : : : "memory");
#elif TX_FORM == 3
  __asm__ volatile(".globl htm_tx_site\nhtm_tx_site: .insn r 0x7B, 3, 0, a0, x0, x0" : "=r"(r) : : "memory");
#else
  r = tessera_tx_begin();
  if (r == 0) tessera_tx_end();
#endif
  out[tessera_lane_id()] = r + 1u;
}

int main(void) {
  tessera_launch(tx_kernel, 1, 32, 0, 0);
  tessera_wait();
  printf("FAIL tx_on_sm: the kernel ran to the end (out[0] = %u)\n", out[0]);
  return 1;
}
